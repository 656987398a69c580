/**
 * `node:http` adapter: reads the raw body (size-capped) from an `IncomingMessage` and writes the
 * answer. Used by `receiver.node()` and by the Express adapter when no body parser ran.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebhookError } from '../errors.js';
import type { ReceiveResult } from '../receive/types.js';
import type { ReceiverLike } from './types.js';

function tooLarge(limit: number): WebhookError {
  return new WebhookError('payload_too_large', `The request body exceeds ${limit} bytes`, {
    details: { limit },
  });
}

/** Reads the whole body as bytes; rejects with `payload_too_large` above `limit`. */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
    if (req.readableEnded) {
      reject(
        new WebhookError(
          'body_consumed',
          'The request body stream was already read by other middleware; mount the webhook route before any body parser.',
        ),
      );
      return;
    }
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    if (declared > limit) {
      reject(tooLarge(limit));
      return;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    let failed = false;
    const onData = (chunk: Uint8Array | string): void => {
      const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
      size += bytes.byteLength;
      if (size > limit) {
        failed = true;
        cleanup();
        // Discard the rest so the 413 can still be written on this connection.
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = (): void => {
      cleanup();
      if (failed) return;
      // Small bodies arrive in one chunk: hand it over without copying.
      if (chunks.length === 1) {
        resolve(chunks[0] as Uint8Array);
        return;
      }
      const body = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        body.set(chunk, offset);
        offset += chunk.byteLength;
      }
      resolve(body);
    };
    const onError = (error: Error): void => {
      cleanup();
      if (!failed)
        reject(new WebhookError('invalid_body', 'The request body could not be read', { cause: error }));
    };
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** The request's URL as the client called it (schemes that sign the URL need it). */
export function requestUrl(req: IncomingMessage, path = req.url): string {
  const encrypted = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  const host = req.headers.host ?? 'localhost';
  return `${encrypted ? 'https' : 'http'}://${host}${path ?? '/'}`;
}

export function sendNodeResult(res: ServerResponse, result: ReceiveResult): void {
  if (res.headersSent) return;
  res.statusCode = result.status;
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
  if (result.status === 413) res.setHeader('connection', 'close');
  res.end(result.body);
}

/** A `node:http` request listener for a receiver. */
export function nodeHandler(receiver: ReceiverLike): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void (async () => {
      let result: ReceiveResult;
      try {
        const body = await readNodeBody(req, receiver.maxBodyBytes);
        result = await receiver.handle({ headers: req.headers, body, url: requestUrl(req) });
      } catch (error) {
        result = receiver.reject(error);
      }
      sendNodeResult(res, result);
    })();
  };
}
