import http, { type IncomingHttpHeaders } from 'node:http';
import net from 'node:net';

/**
 * The abuse run's HTTP client: node:http rather than fetch, so that bytes are
 * counted as they cross the wire (fetch would decompress), nothing is pooled
 * unless asked for, and a timeout is a result rather than an exception.
 */

export interface Exchange {
  /** 0 when no response came (timeout, reset, refused); `error` says which. */
  status: number;
  headers: IncomingHttpHeaders;
  /** Response body bytes as received, before any decoding. */
  bytes: number;
  ms: number;
  body?: string;
  error?: string;
}

export interface SendOptions {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Keep the body text (only for small answers: some are 50 MB). */
  keepBody?: boolean;
  timeoutMs?: number;
  agent?: http.Agent;
}

export function send(base: string, opts: SendOptions): Promise<Exchange> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const headers = { ...opts.headers };
    if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
    const req = http.request(new URL(opts.path, base), {
      method: opts.method ?? 'GET',
      headers,
      agent: opts.agent ?? false,
    });
    const timer = setTimeout(() => req.destroy(new Error('timeout')), opts.timeoutMs ?? 120_000);
    const fail = (err: Error, partial?: Partial<Exchange>) => {
      clearTimeout(timer);
      resolve({
        status: 0,
        headers: {},
        bytes: 0,
        ...partial,
        ms: elapsed(),
        error: err.message || (err as { code?: string }).code,
      });
    };
    req.once('error', (err) => fail(err));
    req.once('response', (res) => {
      let bytes = 0;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (opts.keepBody) chunks.push(chunk);
      });
      res.once('error', (err) => fail(err, { status: res.statusCode ?? 0, headers: res.headers, bytes }));
      res.once('end', () => {
        clearTimeout(timer);
        const body = opts.keepBody ? Buffer.concat(chunks).toString('utf8') : undefined;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes, ms: elapsed(), body });
      });
    });
    req.end(opts.body);
  });
}

export interface GraphQLRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** A POST /graphql as a JSON client sends it, with a bearer token. */
export function postGraphQL(
  base: string,
  token: string,
  request: GraphQLRequest | string,
  extra: Omit<SendOptions, 'path' | 'body'> = {},
): Promise<Exchange & { requestBytes: number }> {
  const body = typeof request === 'string' ? request : JSON.stringify(request);
  return send(base, {
    method: 'POST',
    ...extra,
    path: '/graphql',
    body,
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json;q=0.9',
      authorization: `Bearer ${token}`,
      ...extra.headers,
    },
  }).then((x) => ({ ...x, requestBytes: Buffer.byteLength(body) }));
}

export interface RawExchange {
  /** From the status line; 0 when none came back. */
  status: number;
  bytes: number;
  ms: number;
  /** The first line of the answer, or how the connection ended without one. */
  firstLine: string;
}

/**
 * Writes `text` as-is on a fresh TCP connection and reads until the server
 * closes it or timeoutMs passes: for request lines node:http's client would refuse to send.
 */
export function rawRequest(base: string, text: string | Buffer, timeoutMs = 5_000): Promise<RawExchange> {
  const { hostname, port } = new URL(base);
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (why: string) => {
      if (done) return;
      done = true;
      socket.destroy();
      const reply = Buffer.concat(chunks).toString('latin1');
      const firstLine = reply.split('\r\n', 1)[0] || why;
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(firstLine)?.[1] ?? 0);
      resolve({ status, bytes: reply.length, ms: Math.round(performance.now() - started), firstLine });
    };
    socket.setTimeout(timeoutMs, () => finish('(timeout)'));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.once('end', () => finish('(closed without an answer)'));
    socket.once('error', (err) => finish(`(${(err as { code?: string }).code ?? err.message})`));
    socket.once('connect', () => socket.write(text));
  });
}

/** An HTTP/1.1 request head for rawRequest; lines joined with CRLF, blank line added. */
export const requestHead = (requestLine: string, headers: Record<string, string>) =>
  [requestLine, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
