/** What the local servers (`listen`, `mock-receiver`) share: starting on a port, reading capped bodies. */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isWebhookError, readNodeBody } from '@gen-webhooks/runtime';

/**
 * The raw body, or `undefined` after answering 413 when it exceeds `maxBodyBytes` (the caller just
 * returns). A cap keeps a misbehaving sender from filling memory on a developer's machine. The
 * reading is the runtime's (`readNodeBody`: declared length checked first, the rest drained).
 */
export async function readBodyCapped(
  req: IncomingMessage,
  res: ServerResponse,
  maxBodyBytes: number,
): Promise<Buffer | undefined> {
  try {
    const bytes = await readNodeBody(req, maxBodyBytes);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (error) {
    if (!isWebhookError(error, 'payload_too_large')) throw error;
    res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
    res.end(JSON.stringify({ error: `body larger than ${maxBodyBytes} bytes` }));
    return undefined;
  }
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
