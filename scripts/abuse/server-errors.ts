import { columns, record, type Finding, type FindingContext } from './finding.ts';
import { postGraphQL, rawRequest, requestHead } from './http.ts';
import { thousands } from './measure.ts';

const DOCUMENTS = [
  { query: 'subscription { __typename }' },
  { query: '{ ...A } fragment A on Query { ...A }' },
  { query: 'query __proto__ { __typename }' },
];
const REQUEST_LINES = ['GET //[ HTTP/1.1', 'GET //% HTTP/1.1', 'GET //x:99999/ HTTP/1.1'];

/**
 * 4. Requests any client can send that end in a 500, each with what the service
 * printed meanwhile: a JSON log line is expected, a multi-line stack is not.
 */
async function run(ctx: FindingContext): Promise<void> {
  const { target } = ctx;
  for (const doc of DOCUMENTS) {
    await record(
      ctx,
      { finding: '4', sent: `POST /graphql ${doc.query}` },
      async () => {
        const x = await postGraphQL(target.base, target.tokens[0], doc, { keepBody: true });
        return { ...columns(x), notes: `answer: ${x.body?.slice(0, 100)}` };
      },
      { logs: true },
    );
  }
  const host = new URL(target.base).host;
  for (const line of REQUEST_LINES) {
    await record(
      ctx,
      { finding: '4', sent: `raw TCP: ${line} (Host: ${host})` },
      async () => {
        const x = await rawRequest(target.base, requestHead(line, { Host: host, Connection: 'close' }));
        return { status: x.status ? String(x.status) : x.firstLine, bytes: thousands(x.bytes), ms: thousands(x.ms) };
      },
      { logs: true },
    );
  }
}

export const serverErrors: Finding = { number: 4, title: 'Client-triggered 500s', run };
