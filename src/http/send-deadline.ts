import type { ServerResponse } from 'node:http';
import type { Logger } from '../platform/logger.ts';

export interface SendLimits {
  /** From the first byte written (the head), the whole answer must be handed to the kernel by then. */
  timeoutMs: number;
  /** Above this many bytes waiting in the process, the client must keep accepting bytes... */
  maxBufferedBytes: number;
  /** ...at least once every this long. */
  stallTimeoutMs: number;
}

/**
 * Bounds how long a response may hold its unsent bytes (the answer, already serialised) in memory: a
 * client that never reads would otherwise pin it for as long as it keeps the connection open. Past the
 * send deadline, or when more than maxBufferedBytes wait and none left since the last check, the
 * connection is destroyed and the memory goes back. Node's own 'finish' means the kernel took the last
 * byte; what sits in the kernel's socket buffer is bounded by the kernel.
 */
export function guardSend(res: ServerResponse, limits: SendLimits, logger: Logger): void {
  const writeHead = res.writeHead;
  let timer: NodeJS.Timeout | undefined;
  // Node's implicit head (a write() without writeHead) goes through writeHead too.
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    if (!timer) start();
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];

  function start() {
    const started = Date.now();
    let previous = Infinity;
    const cut = (reason: string) => {
      logger.info({ reason, bufferedBytes: res.writableLength, sendingMs: Date.now() - started }, 'slow client cut off');
      res.destroy();
    };
    const check = () => {
      if (res.writableFinished || res.destroyed) return;
      const elapsed = Date.now() - started;
      if (elapsed >= limits.timeoutMs) return cut('send timeout');
      // Once the whole answer is written, the buffer only shrinks as the client reads.
      const buffered = res.writableEnded ? res.writableLength : Infinity;
      if (buffered > limits.maxBufferedBytes && buffered !== Infinity && buffered >= previous) return cut('stalled with a full buffer');
      previous = buffered;
      timer = setTimeout(check, Math.min(limits.stallTimeoutMs, limits.timeoutMs - elapsed));
      timer.unref();
    };
    timer = setTimeout(check, Math.min(limits.stallTimeoutMs, limits.timeoutMs));
    timer.unref();
    const stop = () => clearTimeout(timer);
    res.once('finish', stop);
    res.once('close', stop);
  }
}
