import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHashLimiter, HashBusyError } from '../../src/modules/auth/hash-limiter.ts';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

afterEach(() => vi.useRealTimers());

describe('createHashLimiter', () => {
  it('runs at most `concurrency` tasks at once and starts waiters in order', async () => {
    const limiter = createHashLimiter({ concurrency: 2, maxQueue: 10, maxWaitMs: 60_000 });
    const gates = Array.from({ length: 5 }, deferred);
    const started: number[] = [];
    let running = 0;
    let peak = 0;
    const runs = gates.map((gate, i) =>
      limiter.run(async () => {
        started.push(i);
        peak = Math.max(peak, ++running);
        await gate.promise;
        running--;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(limiter.stats).toEqual({ running: 2, waiting: 3 });
    gates[1]!.resolve();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(limiter.stats).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses at once beyond the queue, without running the task', async () => {
    const limiter = createHashLimiter({ concurrency: 1, maxQueue: 1, maxWaitMs: 60_000 });
    const gate = deferred();
    const first = limiter.run(() => gate.promise);
    const second = limiter.run(async () => 'second');
    const task = vi.fn(async () => 'third');
    await expect(limiter.run(task)).rejects.toBeInstanceOf(HashBusyError);
    expect(task).not.toHaveBeenCalled();
    gate.resolve();
    await first;
    expect(await second).toBe('second');
  });

  it('gives up on a waiter after maxWaitMs and keeps the slot count right', async () => {
    vi.useFakeTimers();
    const limiter = createHashLimiter({ concurrency: 1, maxQueue: 5, maxWaitMs: 100 });
    const gate = deferred();
    const first = limiter.run(() => gate.promise);
    const task = vi.fn(async () => 'late');
    const waiter = limiter.run(task);
    const rejected = expect(waiter).rejects.toBeInstanceOf(HashBusyError);
    await vi.advanceTimersByTimeAsync(100);
    await rejected;
    expect(task).not.toHaveBeenCalled();
    expect(limiter.stats).toEqual({ running: 1, waiting: 0 });
    gate.resolve();
    await first;
    expect(limiter.stats).toEqual({ running: 0, waiting: 0 });
    expect(await limiter.run(async () => 'next')).toBe('next');
  });

  it('frees the slot when a task fails', async () => {
    const limiter = createHashLimiter({ concurrency: 1, maxQueue: 0, maxWaitMs: 1 });
    await expect(limiter.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(async () => 'ok')).toBe('ok');
  });
});
