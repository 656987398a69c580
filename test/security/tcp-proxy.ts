/**
 * A TCP proxy for fault tests: listens on 127.0.0.1:0 and forwards to a real server (PostgreSQL on
 * 127.0.0.1:5432 by default, or Redis), so a test can break the network between the code under test
 * and the server without touching the server, which other test files share.
 *
 * - `cut()` destroys every open connection (a server restart or a dropped link); new connections are
 *   accepted and forwarded again at once.
 * - `blackhole()` is a partition: nothing moves in either direction, on open connections or new ones
 *   (accepted, but not connected upstream); the bytes are held, not lost, as TCP would retransmit them.
 * - `restore()` ends the partition: held bytes are delivered and forwarding resumes.
 */
import net from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Connections currently open through the proxy. */
  readonly connections: number;
  /** `url` (a postgres:// or redis:// URL) with its host and port replaced by the proxy's. */
  via(url: string): string;
  cut(): void;
  blackhole(): void;
  restore(): void;
  close(): Promise<void>;
}

interface Link {
  readonly client: net.Socket;
  upstream: net.Socket | undefined;
  /** Bytes held while the link is partitioned (or before its upstream is connected). */
  readonly toServer: Buffer[];
  readonly toClient: Buffer[];
}

export async function startTcpProxy(target: { host?: string; port?: number } = {}): Promise<TcpProxy> {
  const host = target.host ?? '127.0.0.1';
  const port = target.port ?? 5432;
  const links = new Set<Link>();
  let partitioned = false;

  const destroy = (link: Link): void => {
    links.delete(link);
    link.client.destroy();
    link.upstream?.destroy();
  };

  const connectUpstream = (link: Link): void => {
    const upstream = net.connect({ host, port });
    link.upstream = upstream;
    upstream.on('data', (chunk: Buffer) => {
      if (partitioned) link.toClient.push(chunk);
      else link.client.write(chunk);
    });
    upstream.on('connect', () => flush(link));
    upstream.on('error', () => destroy(link));
    upstream.on('close', () => destroy(link));
  };

  const flush = (link: Link): void => {
    if (partitioned) return;
    const upstream = link.upstream;
    if (upstream === undefined) {
      connectUpstream(link);
      return;
    }
    if (upstream.connecting) return;
    for (const chunk of link.toServer.splice(0)) upstream.write(chunk);
    for (const chunk of link.toClient.splice(0)) link.client.write(chunk);
  };

  const server = net.createServer((client) => {
    const link: Link = { client, upstream: undefined, toServer: [], toClient: [] };
    links.add(link);
    client.on('data', (chunk: Buffer) => {
      const upstream = link.upstream;
      if (partitioned || upstream === undefined || upstream.connecting) link.toServer.push(chunk);
      else upstream.write(chunk);
    });
    client.on('error', () => destroy(link));
    client.on('close', () => destroy(link));
    if (!partitioned) connectUpstream(link);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;

  return {
    port: address.port,
    get connections() {
      return links.size;
    },
    via(url: string): string {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(address.port);
      return u.toString();
    },
    cut() {
      for (const link of [...links]) {
        // A reset, as when the server process dies or a middlebox drops the connection.
        link.client.resetAndDestroy();
        link.upstream?.destroy();
        links.delete(link);
      }
    },
    blackhole() {
      partitioned = true;
    },
    restore() {
      partitioned = false;
      for (const link of links) flush(link);
    },
    close() {
      for (const link of [...links]) destroy(link);
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
