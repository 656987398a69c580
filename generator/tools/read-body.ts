/** Reading a request body for the local servers (`listen`, `mock-receiver`), capped in size. */
import type { IncomingMessage, ServerResponse } from 'node:http';

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
