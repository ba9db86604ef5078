import net from 'node:net';
import { columns, record, sleep, type Finding, type FindingContext } from './finding.ts';
import { postGraphQL, requestHead, send, type Exchange } from './http.ts';
import { describeOutput } from './server-output.ts';

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** A log line in a few words: level, message, and what else tells the story. */
function describeLogLine(line: string): string {
  try {
    type LogLine = {
      level: number;
      msg: string;
      status?: number;
      err?: { message?: string };
      aborted?: boolean;
      args?: unknown[];
    };
    const l = JSON.parse(line) as LogLine;
    const extra = [
      l.status && `status ${l.status}`,
      l.aborted && 'aborted',
      l.err?.message && `err "${l.err.message.slice(0, 60)}"`,
      l.args?.length && `"${String(l.args[0]).slice(0, 60)}"`,
    ];
    return [`${LEVELS[l.level] ?? l.level} "${l.msg}"`, ...extra.filter(Boolean)].join(' ');
  } catch {
    return `non-JSON: ${line.slice(0, 80)}`;
  }
}

/** Identical descriptions once each, with a count: "info "request" status 499; error "yoga" ×2". */
function summarise(descriptions: string[]): string {
  const counts = new Map<string, number>();
  for (const d of descriptions) counts.set(d, (counts.get(d) ?? 0) + 1);
  const parts = [...counts].slice(0, 5).map(([d, n]) => (n > 1 ? `${d} ×${n}` : d));
  return (parts.join('; ') || 'nothing') + (counts.size > 5 ? `; and ${counts.size - 5} other kinds` : '');
}

const requestId = (what: string) => `abuse-7-${what}-${Date.now()}`;

/** Declares a 1000-byte body, sends 10 bytes of it and goes away; returns the X-Request-Id it sent. */
async function abandonBody(base: string, path: string, token: string): Promise<string> {
  const id = requestId('aborted');
  const { hostname, port } = new URL(base);
  const socket = net.connect(Number(port), hostname);
  socket.on('error', () => {});
  const head = requestHead(`POST ${path} HTTP/1.1`, {
    Host: `${hostname}:${port}`,
    Authorization: `Bearer ${token}`,
    'Content-Type': 'application/json',
    'Content-Length': '1000',
    'X-Request-Id': id,
  });
  await new Promise<void>((r) => socket.once('connect', () => socket.write(`${head}{"query":"`, () => r())));
  await sleep(200);
  socket.destroy();
  await sleep(700);
  return id;
}

const header = (x: Exchange, name: string) => {
  const value = x.headers[name.toLowerCase()];
  return value === undefined ? `${name}: absent` : `${name}: ${String(value).slice(0, 80)}`;
};

/** 7. The smaller ones: aliases of __typename, a huge operationName, an aborted body, security headers. */
async function run(ctx: FindingContext): Promise<void> {
  const { target } = ctx;
  const token = target.tokens[0];

  const aliases = Array.from({ length: 17 }, (_, i) => `${String.fromCharCode(97 + i)}: __typename`).join(' ');
  await record(
    ctx,
    { finding: '7', sent: `17 aliases of __typename { a: __typename … q: __typename } (limit 15)` },
    async () => {
      const x = await postGraphQL(target.base, token, { query: `{ ${aliases} }` }, { keepBody: true });
      return { ...columns(x), notes: x.status === 200 ? 'accepted' : `refused: ${x.body?.slice(0, 100)}` };
    },
  );

  await record(ctx, { finding: '7', sent: 'operationName of 500,000 characters on { __typename }' }, async () => {
    const id = requestId('opname');
    const request = { query: '{ __typename }', operationName: 'x'.repeat(500_000) };
    const x = await postGraphQL(target.base, token, request, { headers: { 'x-request-id': id } });
    const { lines } = await describeOutput(target.output);
    const access = lines.find((l) => l.includes(`"reqId":"${id}"`) && l.includes('"msg":"request"'));
    const found = access ? `access-log line ${Buffer.byteLength(access)} bytes` : 'no access-log line found';
    const logged = target.output ? found : 'output not captured (--url)';
    return { ...columns(x), notes: `request ${x.requestBytes} bytes; ${logged}` };
  });

  // /graphql as the issue has it; the login route reads its body with the dispatcher's own reader.
  for (const path of ['/graphql', '/api/v1/login']) {
    await record(ctx, { finding: '7', sent: `POST ${path} Content-Length: 1000, closed after 10 bytes` }, async () => {
      const id = await abandonBody(target.base, path, token);
      const { lines } = await describeOutput(target.output);
      const ours = lines.filter((l) => l.includes(id));
      const found = `logged: ${summarise((ours.length ? ours : lines).map(describeLogLine))}`;
      const logged = target.output ? found : 'output not captured (--url)';
      return { status: '– (client gone)', bytes: '–', ms: '–', notes: logged };
    });
  }

  const probes: [string, () => Promise<Exchange>, string[]][] = [
    [
      'GraphQL answer: POST /graphql { __typename }',
      () => postGraphQL(target.base, token, { query: '{ __typename }' }),
      ['X-Content-Type-Options'],
    ],
    ['REST 404: GET /api/v1/nowhere', () => send(target.base, { path: '/api/v1/nowhere' }), ['X-Content-Type-Options']],
    [
      'GraphiQL page: GET /graphql Accept: text/html',
      () => send(target.base, { path: '/graphql', headers: { accept: 'text/html' } }),
      ['X-Content-Type-Options', 'Content-Security-Policy', 'X-Frame-Options'],
    ],
  ];
  for (const [sent, fire, names] of probes) {
    await record(ctx, { finding: '7', sent: `headers of a ${sent}` }, async () => {
      const x = await fire();
      const csp = String(x.headers['content-security-policy'] ?? '');
      const ancestors = `frame-ancestors: ${csp.includes('frame-ancestors') ? 'present' : 'absent'}`;
      const frames = names.includes('Content-Security-Policy') ? [ancestors] : [];
      return { ...columns(x), notes: [...names.map((n) => header(x, n)), ...frames].join('; ') };
    });
  }
}

export const smaller: Finding = { number: 7, title: 'Smaller findings', run };
