import type { Server } from '../lib/service-process.ts';
import type { QueryName } from './queries.ts';

/** POSTs every distinct body to both servers and compares the responses byte for byte; with one server, checks it answers cleanly. */
export async function verify(q: QueryName, bodies: string[], token: string, servers: Server[]): Promise<string[]> {
  const problems: string[] = [];
  const post = async (server: Server, body: string) => {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
      body,
    });
    return { status: res.status, text: await res.text() };
  };
  let next = 0;
  const worker = async () => {
    while (next < bodies.length && problems.length < 5) {
      const body = bodies[next++]!;
      if (servers.length === 1) {
        // Nothing to compare with: a clean, valid answer is what is checked.
        const a = await post(servers[0]!, body);
        if (
          a.status !== 200 ||
          !a.text.startsWith('{"data":{') ||
          a.text.includes('"errors"') ||
          (a.text.includes('"valid":') && !a.text.includes('"valid":true'))
        ) {
          problems.push(`${q} ${body}\n  ${servers[0]!.name} ${a.status} ${a.text.slice(0, 300)}`);
        }
        continue;
      }
      const [a, b] = await Promise.all(servers.map((s) => post(s, body)));
      if (
        a!.status !== 200 ||
        b!.status !== 200 ||
        a!.text !== b!.text ||
        !a!.text.startsWith('{"data":{') ||
        a!.text.includes('"errors"')
      ) {
        problems.push(
          `${q} ${body}\n  service   ${a!.status} ${a!.text.slice(0, 300)}\n  reference ${b!.status} ${b!.text.slice(0, 300)}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return problems;
}
