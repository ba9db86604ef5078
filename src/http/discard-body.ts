import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A refusal's answer is sent at once, but the connection is closed only after what is left of the body has
 * been read and dropped, up to these bounds: closing a socket with unread data makes the kernel reset the
 * connection, and a client still sending (Node's fetch) then sees EPIPE instead of the status. Past either
 * bound the connection is closed anyway.
 */
export const DISCARD_MAX_BYTES = 16 * 1024 * 1024;
export const DISCARD_MAX_MS = 5_000;

/** Resolves once the body has ended (true), or a bound was passed or the client went away (false). */
export function discardBody(
  req: IncomingMessage,
  { maxBytes = DISCARD_MAX_BYTES, maxMs = DISCARD_MAX_MS } = {},
): Promise<boolean> {
  if (req.complete || req.readableEnded) return Promise.resolve(true);
  // A declared length past the bound is not worth reading at all.
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('close', onClose);
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) {
        req.pause();
        finish(false);
      }
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(req.complete);
    const timer = setTimeout(() => finish(false), maxMs);
    req.on('data', onData).once('end', onEnd).once('close', onClose);
    req.resume();
  });
}

/**
 * The answer `send` writes goes out whole (it carries its Content-Length); only its end, which closes a
 * `Connection: close` socket, waits until the unread body has been discarded.
 */
export function answerThenDiscard(req: IncomingMessage, res: ServerResponse, send: () => void): void {
  if (req.complete) return send();
  const discarded = discardBody(req);
  const end = res.end.bind(res);
  res.end = ((chunk?: unknown) => {
    if (chunk !== undefined && typeof chunk !== 'function') res.write(chunk);
    void discarded.then(() => end());
    return res;
  }) as ServerResponse['end'];
  send();
}
