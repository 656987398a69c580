/**
 * Web-standard adapter: `(Request) => Promise<Response>` for Hono (`c.req.raw`), Next.js route
 * handlers, Bun, Deno and Workers. The body is read as bytes with the receiver's size cap.
 */
import { bodyTooLarge, joinChunks } from '../bytes.js';
import { WebhookError } from '../errors.js';
import type { ReceiveResult } from '../receive/types.js';
import type { ReceiverLike } from './types.js';

/** Reads the raw body, failing fast on a declared or streamed size above `limit`. */
export async function readRequestBody(request: Request, limit: number): Promise<Uint8Array> {
  if (request.bodyUsed) {
    throw new WebhookError(
      'body_consumed',
      'The request body was already read (e.g. by `await c.req.json()`); pass the untouched Request to the receiver.',
    );
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) throw bodyTooLarge(limit);
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
      throw bodyTooLarge(limit);
    }
    chunks.push(value);
  }
  return joinChunks(chunks, size);
}

export function toResponse(result: ReceiveResult): Response {
  const { status, headers } = result;
  return new Response(result.body, headers === undefined ? { status } : { status, headers });
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
    return toResponse(
      await receiver.handle({ headers: request.headers, body, url: request.url, method: request.method }),
    );
  };
}
