import net from 'node:net';

/**
 * A TCP proxy between the app and PostgreSQL that a test can break:
 * - cut():       drops every connection and refuses new ones (the listener closes: ECONNREFUSED);
 * - blackHole(): connections stay open but nothing passes, and new ones are accepted
 *                and never answered (a partitioned network or a hung server);
 * - restore():   forwards again; black-holed connections are dropped, as a
 *                firewall that lost its state would.
 * `onClientData` sees each chunk the app sends, once it has been passed on.
 */
export interface TcpProxy {
  port: number;
  /** `url` with its host and port pointed at the proxy. */
  proxiedUrl(url: string): string;
  cut(): Promise<void>;
  blackHole(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket | undefined;
}

export async function startTcpProxy(
  target: { host: string; port: number },
  options: { initially?: 'open' | 'cut'; onClientData?: (chunk: Buffer) => void } = {},
): Promise<TcpProxy> {
  let mode: 'open' | 'cut' | 'black-hole' = 'open';
  const pairs = new Set<Pair>();
  const server = net.createServer((client) => {
    const pair: Pair = { client, upstream: undefined };
    pairs.add(pair);
    client.on('error', () => {});
    client.on('close', () => {
      pairs.delete(pair);
      pair.upstream?.destroy();
    });
    if (mode === 'black-hole') {
      client.pause();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    pair.upstream = upstream;
    upstream.on('error', () => {});
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
    // Registered after the pipe's own listener: the chunk is already on its way upstream.
    if (options.onClientData) client.on('data', options.onClientData);
  });

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  const dropAll = () => {
    for (const pair of pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    pairs.clear();
  };

  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  if (options.initially === 'cut') {
    mode = 'cut';
    await stopListening();
  }

  return {
    port,
    proxiedUrl(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async cut() {
      mode = 'cut';
      const closed = stopListening();
      dropAll();
      await closed;
    },
    blackHole() {
      mode = 'black-hole';
      for (const pair of pairs) {
        pair.client.unpipe();
        pair.upstream?.unpipe();
        pair.client.pause();
        pair.upstream?.pause();
      }
    },
    async restore() {
      if (mode === 'black-hole') dropAll();
      if (mode === 'cut') await listen(port);
      mode = 'open';
    },
    async close() {
      mode = 'cut';
      const closed = stopListening();
      dropAll();
      await closed;
    },
  };
}
