/**
 * Web-standard adapter: `(Request) => Promise<Response>` for Hono (`c.req.raw`), Next.js route
 * handlers, Bun, Deno and Workers. The body is read as bytes with the receiver's size cap.
 */
import { WebhookError } from '../errors.js';
import type { ReceiveResult } from '../receive/types.js';
import type { ReceiverLike } from './types.js';

function tooLarge(limit: number): WebhookError {
  return new WebhookError('payload_too_large', `The request body exceeds ${limit} bytes`, {
    details: { limit },
  });
}

/** Reads the raw body, failing fast on a declared or streamed size above `limit`. */
export async function readRequestBody(request: Request, limit: number): Promise<Uint8Array> {
  if (request.bodyUsed) {
    throw new WebhookError(
      'body_consumed',
      'The request body was already read (e.g. by `await c.req.json()`); pass the untouched Request to the receiver.',
    );
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) throw tooLarge(limit);
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

export function toResponse(result: ReceiveResult): Response {
  return new Response(result.body, { status: result.status, headers: result.headers });
}

/** `(Request) => Promise<Response>` for a receiver. */
export function webHandler(receiver: ReceiverLike): (request: Request) => Promise<Response> {
  return async (request) => {
    let body: Uint8Array;
    try {
      body = await readRequestBody(request, receiver.maxBodyBytes);
    } catch (error) {
      return toResponse(receiver.reject(error));
    }
    return toResponse(await receiver.handle({ headers: request.headers, body, url: request.url }));
  };
}
