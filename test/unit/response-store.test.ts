import type { ExecutionResult } from 'graphql';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createResponseStore } from '../../src/graphql/response-cache.ts';
import { dependsOn, requestContext, type RequestContext } from '../../src/platform/request-context.ts';

// The store as the response-cache plugin drives it: get (twice a request), set, land; tags from the
// request context. Through its own interface, with no HTTP: what the integration tests cannot time.

const store = () => {
  const s = createResponseStore({ maxEntries: 100, maxBytes: 1_000_000, ttlMs: 60_000, registry: new Registry() });
  s.setAvailable(true);
  return s;
};
const as = <T>(request: RequestContext, run: () => T): T => requestContext.run(request, run);
const answer = (text: string) => ({ data: { text } }) as ExecutionResult;
const bodyOf = (result: unknown) => (result as { stringify(): string } | undefined)?.stringify();

describe('the response store', () => {
  it('lets identical requests wait for the one executing, and hands them its answer', async () => {
    const s = store();
    const leader: RequestContext = { reqId: 'a' };
    expect(as(leader, () => s.get('k'))).toBeUndefined();
    as(leader, () => s.takeOff());
    const waiting = as({ reqId: 'b' }, () => s.get('k')) as Promise<unknown>;
    expect(waiting).toBeInstanceOf(Promise);
    as(leader, () => s.set('k', answer('fresh'), [], 60_000));
    expect(bodyOf(await waiting)).toBe('{"data":{"text":"fresh"}}');
  });

  it('lets them go on alone when the one executing ends without an answer to share, and does not wait next time', async () => {
    const s = store();
    const leader: RequestContext = { reqId: 'a' };
    void as(leader, () => s.get('k'));
    as(leader, () => s.takeOff());
    const waiting = as({ reqId: 'b' }, () => s.get('k')) as Promise<unknown>;
    as(leader, () => s.land());
    expect(await waiting).toBeUndefined();
    expect(as({ reqId: 'c' }, () => s.get('k'))).toBeUndefined();
  });

  it('stops a waiting request at its own deadline', async () => {
    const s = store();
    void as({ reqId: 'a' }, () => s.get('k'));
    as({ reqId: 'a' }, () => s.takeOff());
    const controller = new AbortController();
    const waiting = as({ reqId: 'b', controller }, () => s.get('k')) as Promise<unknown>;
    controller.abort();
    expect(await waiting).toBeUndefined();
  });

  it('drops the answers that read a changed tag, keeps the others, and never keeps one computed across its change', () => {
    const s = store();
    for (const [reqId, tag] of [
      ['a', 'product:1'],
      ['b', 'product:2'],
    ] as const) {
      const request: RequestContext = { reqId };
      as(request, () => {
        void s.get(tag);
        dependsOn([tag]);
        s.set(tag, answer(tag), [], 60_000);
        s.land();
      });
    }
    s.invalidateTags(['product:1']);
    expect(as({ reqId: 'c' }, () => s.get('product:1'))).toBeUndefined();
    expect(bodyOf(as({ reqId: 'd' }, () => s.get('product:2')))).toContain('product:2');

    // Began before a change to what it read: not kept.
    const slow: RequestContext = { reqId: 'e' };
    void as(slow, () => s.get('page'));
    s.invalidateTags(['product:3']);
    as(slow, () => {
      dependsOn(['product:3', 'products:m']);
      s.set('page', answer('stale'), [], 60_000);
      s.land();
    });
    expect(as({ reqId: 'f' }, () => s.get('page'))).toBeUndefined();
  });

  it('never keeps a writer’s answer', () => {
    const s = store();
    const writer: RequestContext = { reqId: 'w' };
    as(writer, () => {
      void s.get('m');
      s.passOver();
      s.set('m', answer('written'), [], 60_000);
      s.land();
    });
    expect(as({ reqId: 'r' }, () => s.get('m'))).toBeUndefined();
  });
});
