import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import fresh from 'fresh';
import Negotiator from 'negotiator';

// Every client is sent the same Buffers: a stalled socket holds a reference, never a copy of its own.

export interface Body {
  contentType: string;
  cacheControl: string;
  content: Buffer;
  /** Headers every answer for this body carries (security headers of a page). */
  headers?: Record<string, string>;
}

type Encoding = 'br' | 'gzip' | 'identity';
const ENCODINGS: Encoding[] = ['br', 'gzip', 'identity'];

interface Representation {
  bytes: Buffer;
  etag: string;
}

export interface PreparedBody extends Omit<Body, 'content'> {
  encoded: Record<Encoding, Representation>;
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

export const contentHash = (content: Buffer | string) =>
  createHash('sha256').update(content).digest('hex').slice(0, 16);

/**
 * One job at a time on libuv's pool, so logins (argon2 shares it) are not starved at start. Brotli quality 5:
 * every worker pays this at start, and higher levels cost far more CPU for little size (BENCHMARKS.md).
 */
export async function prepareBodies(bodies: ReadonlyMap<string, Body>): Promise<Map<string, PreparedBody>> {
  const prepared = new Map<string, PreparedBody>();
  for (const [key, { content, ...rest }] of bodies) {
    const br = await brotli(content, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: content.length,
      },
    });
    const gz = await gzip(content);
    // A strong ETag names one byte sequence, so each encoding gets its own.
    const hash = contentHash(content);
    prepared.set(key, {
      ...rest,
      encoded: {
        br: { bytes: br, etag: `"${hash}-br"` },
        gzip: { bytes: gz, etag: `"${hash}-gz"` },
        identity: { bytes: content, etag: `"${hash}"` },
      },
    });
  }
  return prepared;
}

// @types/negotiator does not declare the `preferred` option negotiator 1.0 has:
// it breaks ties between equally acceptable encodings in our order, not the client's.
type EncodingsWithPreference = (available: Encoding[], options: { preferred: Encoding[] }) => Encoding[];

function negotiate(req: IncomingMessage): Encoding {
  const negotiator = new Negotiator(req);
  const encodings = (negotiator.encodings as unknown as EncodingsWithPreference).call(negotiator, ENCODINGS, {
    preferred: ENCODINGS,
  });
  return encodings[0] ?? 'identity';
}

const BUSY_BODY = 'Too many downloads of this page in progress; retry in a moment.\n';

/** At most `maxConcurrent` sends (beyond, 503), each within `timeoutMs` or its connection is destroyed. */
export function createBodySender(limits: { maxConcurrent: number; timeoutMs: number }) {
  let inProgress = 0;

  function take(res: ServerResponse): boolean {
    if (inProgress >= limits.maxConcurrent) return false;
    inProgress++;
    const timer = setTimeout(() => res.destroy(), limits.timeoutMs);
    timer.unref();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      inProgress--;
      clearTimeout(timer);
    };
    res.once('finish', release);
    res.once('close', release);
    return true;
  }

  return {
    async send(req: IncomingMessage, res: ServerResponse, body: () => Promise<PreparedBody>): Promise<void> {
      if (!take(res)) {
        res.writeHead(503, {
          'Content-Type': 'text/plain; charset=utf-8',
          'Content-Length': Buffer.byteLength(BUSY_BODY),
          'Retry-After': '1',
          'Cache-Control': 'no-store',
        });
        res.end(req.method === 'HEAD' ? undefined : BUSY_BODY);
        return;
      }
      const prepared = await body();
      if (res.destroyed) return;
      const encoding = negotiate(req);
      const { bytes, etag } = prepared.encoded[encoding];
      const vary = res.getHeader('Vary');
      const headers: Record<string, string | number> = {
        ...prepared.headers,
        'Cache-Control': prepared.cacheControl,
        ETag: etag,
        Vary: vary ? `${String(vary)}, Accept-Encoding` : 'Accept-Encoding',
      };
      if (fresh(req.headers, { etag })) {
        res.writeHead(304, headers);
        res.end();
        return;
      }
      res.writeHead(200, {
        ...headers,
        'Content-Type': prepared.contentType,
        'Content-Length': bytes.length,
        ...(encoding === 'identity' ? {} : { 'Content-Encoding': encoding }),
      });
      res.end(req.method === 'HEAD' ? undefined : bytes);
    },
  };
}
