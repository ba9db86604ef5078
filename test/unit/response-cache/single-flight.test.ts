import { describe, expect, it } from 'vitest';
import { createSingleFlight } from '../../../src/graphql/response-cache/single-flight.ts';

describe('single flight', () => {
  it('lets identical requests wait for the one executing, and hands them its answer', async () => {
    const flights = createSingleFlight<string>();
    const leader = {};
    flights.takeOff('k', leader);
    expect(flights.join('k', leader)).toBeUndefined();
    const waiting = flights.join('k', {});
    flights.land('k', leader, 'answer');
    expect(await waiting).toBe('answer');
  });

  it('lets them go on alone when the leader has nothing to share, and does not wait next time', async () => {
    const flights = createSingleFlight<string>();
    const leader = {};
    flights.takeOff('k', leader);
    const waiting = flights.join('k', {});
    flights.land('k', {}, 'not the leader');
    flights.land('k', leader, undefined);
    expect(await waiting).toBeUndefined();
    flights.takeOff('k', leader);
    expect(flights.join('k', {})).toBeUndefined();
  });

  it('stops a waiting request at its own deadline', async () => {
    const flights = createSingleFlight<string>();
    flights.takeOff('k', {});
    const controller = new AbortController();
    const waiting = flights.join('k', {}, controller.signal);
    controller.abort();
    expect(await waiting).toBeUndefined();
  });
});
