/** What the local servers (`listen`, `mock-receiver`) share: starting on a port, reading capped bodies. */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The raw body, or `undefined` after answering 413 when it exceeds `maxBodyBytes` (the caller just
 * returns). A cap keeps a misbehaving sender from filling memory on a developer's machine.
 */
export async function readBodyCapped(
  req: IncomingMessage,
  res: ServerResponse,
  maxBodyBytes: number,
): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) {
      res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ error: `body larger than ${maxBodyBytes} bytes` }));
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Starts `server` on `host:port` (default 127.0.0.1; port 0 picks a free one); returns its base URL and port.
 * A busy port rejects with the server's error instead of crashing the process.
 */
export async function listenLocal(
  server: Server,
  port: number,
  host = '127.0.0.1',
): Promise<{ url: string; port: number }> {
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostText = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { url: `http://${hostText}:${address.port}`, port: address.port };
}
