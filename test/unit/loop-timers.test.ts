import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setLoopAwareTimeout, withinLoopAwareTimeout } from '../../src/platform/loop-timers.ts';

/** The whole process stops: no timer runs and no socket is read meanwhile. */
function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

/** The next timers phase: every timer due by now has run. */
const nextTimers = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('loop-aware timeouts', () => {
  // Another process answers while this one is blocked, as PostgreSQL does.
  let echo: ChildProcess;
  let port: number;
  beforeAll(async () => {
    echo = spawn(
      process.execPath,
      [
        '-e',
        `const s = require('node:net').createServer((c) => c.on('data', () => c.write('pong')).on('error', () => {}));
         s.listen(0, '127.0.0.1', () => console.log(s.address().port));`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    port = await new Promise<number>((resolve) => echo.stdout!.once('data', (d) => resolve(Number(String(d)))));
  });
  afterAll(() => echo?.kill());

  it('a timer that could not run while the loop was blocked does not expire as soon as the loop is free', async () => {
    let expired = false;
    let plain = false;
    setTimeout(() => (plain = true), 100);
    setLoopAwareTimeout(100, () => (expired = true));
    blockEventLoop(300);
    const freed = performance.now();
    await nextTimers();
    // A wall-clock timer of the same length has fired; this one waits for free time.
    expect(plain).toBe(true);
    expect(expired).toBe(false);
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => expired && (clearInterval(poll), resolve()), 5);
    });
    // Most of its 100 ms is counted after the block (the slice in progress then was late, not counted).
    expect(performance.now() - freed).toBeGreaterThanOrEqual(60);
  });

  it('an answer that arrived while the loop was blocked wins over the timeout; a wall-clock race would lose it', async () => {
    const ask = async () => {
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      const answer = new Promise<string>((resolve) => socket.once('data', (d) => resolve(String(d))));
      return { socket, answer };
    };
    const timeout = () => new Error('timed out');

    const aware = await ask();
    const awareRace = withinLoopAwareTimeout(aware.answer, 300, timeout, () => {});
    aware.socket.write('ping');
    blockEventLoop(600);
    await expect(awareRace).resolves.toBe('pong');
    aware.socket.destroy();

    // The same with setTimeout: due timers run before sockets are read, so the timeout wins.
    const plain = await ask();
    const plainRace = Promise.race([
      plain.answer,
      new Promise<string>((_, reject) => setTimeout(() => reject(timeout()), 300)),
    ]);
    plain.socket.write('ping');
    blockEventLoop(600);
    await expect(plainRace).rejects.toThrow('timed out');
    plain.socket.destroy();
  });

  it('expires when the loop is free and nothing answers', async () => {
    const started = performance.now();
    await expect(
      withinLoopAwareTimeout(
        new Promise(() => {}),
        100,
        () => new Error('timed out'),
        () => {},
      ),
    ).rejects.toThrow('timed out');
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
  });
});
