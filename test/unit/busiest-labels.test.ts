import { describe, expect, it } from 'vitest';
import { createBusiestLabels, OTHER_LABEL } from '../../src/platform/busiest-labels.ts';

function labels(max: number) {
  let clock = 0;
  const evicted: string[] = [];
  const busiest = createBusiestLabels({ max, windowMs: 1000, evicted: (k) => evicted.push(k), now: () => clock });
  return {
    evicted,
    tick: (ms: number) => (clock += ms),
    send: (key: string, times = 1) => {
      let label = '';
      for (let i = 0; i < times; i++) label = busiest.label(key);
      return label;
    },
  };
}

describe('busiest labels', () => {
  it('gives keys their own label while there is room, then the shared one', () => {
    const l = labels(2);
    expect(l.send('a')).toBe('a');
    expect(l.send('b')).toBe('b');
    expect(l.send('c', 50)).toBe(OTHER_LABEL);
    expect(l.send('a')).toBe('a');
    expect(l.evicted).toEqual([]);
  });

  it("at a window's end the window's busiest take the slots and the displaced are evicted", () => {
    const l = labels(2);
    l.send('a');
    l.send('b', 5);
    l.send('c', 50);
    l.tick(1000);
    // c was the busiest of the window, b next: a is displaced.
    expect(l.send('c')).toBe('c');
    expect(l.evicted).toEqual(['a']);
    expect(l.send('b')).toBe('b');
    expect(l.send('a')).toBe(OTHER_LABEL);
  });

  it('keeps quiet keys labelled while no busier key needs the slot', () => {
    const l = labels(3);
    l.send('a');
    l.send('b');
    l.tick(1000);
    l.send('b', 3);
    l.tick(1000);
    expect(l.send('a')).toBe('a');
    expect(l.evicted).toEqual([]);
  });

  it('never holds more than `max` labels, however many keys come', () => {
    const l = labels(50);
    for (let round = 0; round < 5; round++) {
      const given = new Set<string>();
      for (let k = 0; k < 500; k++) given.add(l.send(`t${(k * 7 + round * 131) % 500}`, 1 + (k % 3)));
      given.delete(OTHER_LABEL);
      expect(given.size).toBeLessThanOrEqual(50);
      l.tick(1000);
    }
    expect(l.evicted.length).toBeGreaterThan(0);
  });
});
