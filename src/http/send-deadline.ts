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
 * send deadline, or when more than maxBufferedBytes wait and the client took none since the last check
 * (stallTimeoutMs earlier), the connection is destroyed and the memory goes back. Node's own 'finish' means the kernel took the last
 * byte; what sits in the kernel's socket buffer is bounded by the kernel.
 */
/**
 * Node counts a write as buffered until the kernel took all of it, so one 12 MB write read slowly looks
 * stalled there; libuv's queue shrinks with every partial write. Internal, hence the fallback.
 */
function queuedInLibuv(res: ServerResponse): number {
  const queued = (res.socket as { _handle?: { writeQueueSize?: unknown } } | null)?._handle?.writeQueueSize;
  return typeof queued === 'number' ? queued : res.writableLength;
}

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
    let previous = { buffered: Infinity, queued: Infinity };
    const cut = (reason: string) => {
      logger.info(
        { reason, bufferedBytes: res.writableLength, sendingMs: Date.now() - started },
        'slow client cut off',
      );
      res.destroy();
    };
    const check = () => {
      if (res.writableFinished || res.destroyed) return;
      const elapsed = Date.now() - started;
      if (elapsed >= limits.timeoutMs) return cut('send timeout');
      const now = { buffered: res.writableLength, queued: queuedInLibuv(res) };
      const progressed = now.buffered < previous.buffered || now.queued < previous.queued;
      if (now.buffered > limits.maxBufferedBytes && !progressed) return cut('stalled with a full buffer');
      previous = now;
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
