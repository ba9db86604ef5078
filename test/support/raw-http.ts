import http, { type OutgoingHttpHeaders } from 'node:http';
import net from 'node:net';

/**
 * HTTP requests fetch cannot make: from another loopback address (a second
 * "client IP" on Linux, where all of 127.0.0.0/8 is local), with a header sent
 * twice, or with bytes fetch refuses to put on the wire.
 */

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as it came over the wire (node:http does not decode Content-Encoding). */
  body: Buffer;
  text: string;
  json(): any;
}

export function request(
  baseUrl: string,
  path: string,
  options: {
    method?: string;
    headers?: OutgoingHttpHeaders;
    body?: unknown;
    rawBody?: string;
    localAddress?: string;
    /** A keep-alive agent to reuse connections; by default each request has its own. */
    agent?: http.Agent;
    token?: string;
  } = {},
): Promise<RawResponse> {
  const url = new URL(path, baseUrl);
  const body = options.body === undefined ? options.rawBody : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: options.method ?? 'GET',
        localAddress: options.localAddress,
        agent: options.agent ?? false,
        headers: {
          ...(options.body !== undefined
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body!) }
            : {}),
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const text = body.toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json: () => JSON.parse(text) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (body === undefined) req.end();
    else req.end(body);
  });
}

/** POST /api/v1/login from a given client address. */
export function loginFrom(baseUrl: string, localAddress: string, email: string, password: string) {
  return request(baseUrl, '/api/v1/login', { method: 'POST', body: { email, password }, localAddress });
}

/** Writes raw bytes (end them with Connection: close) and returns all the server sent back. */
export function rawExchange(baseUrl: string, bytes: Buffer): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
  });
}

/**
 * Sends a GET and never reads the answer: the client that a server must not let
 * hold its memory or its send slots. Destroy the socket to let it go.
 */
export function stalledRequest(baseUrl: string, path: string, headers: Record<string, string> = {}): net.Socket {
  const url = new URL(baseUrl);
  const socket = net.connect(Number(url.port), url.hostname);
  socket.pause();
  socket.on('error', () => {});
  const lines = Object.entries({ Host: url.host, ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.write(`GET ${path} HTTP/1.1\r\n${lines.join('')}\r\n`);
  return socket;
}
