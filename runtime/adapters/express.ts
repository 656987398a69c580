/**
 * Express adapter: `app.post('/hooks', expressHandler(receiver))`.
 *
 * Signatures cover the exact bytes sent, so the handler needs the raw body. It reads the request
 * stream itself when no body parser ran (mount the route before `app.use(express.json())`), and it
 * accepts the Buffer of `express.raw({ type: '*\/*' })` or the string of `express.text()`. When a JSON
 * parser already consumed the stream, it answers 500 `parsed_body` and logs how to fix the app — the
 * most common webhook bug.
 */
import { WebhookError } from '../errors.js';
import type { ReceiveResult } from '../receive/types.js';
import { readNodeBody, requestUrl, sendNodeResult } from './node-http.js';
import type { NodeRequest, NodeResponse } from './node-types.js';
import type { ReceiverLike } from './types.js';

/** The parts of Express's request the adapter reads (structural: no dependency on express). */
export interface ExpressRequestLike extends NodeRequest {
  body?: unknown;
  originalUrl?: string;
  protocol?: string;
}

export interface ExpressHandlerOptions {
  /** Public URL of the endpoint, for schemes that sign the URL behind a proxy. Default: from the request. */
  readonly publicUrl?: (req: ExpressRequestLike) => string;
}

const PARSED_HINT =
  'A body parser (e.g. app.use(express.json())) consumed the webhook request before the receiver could ' +
  'verify its signature, which covers the raw bytes. Mount the webhook route before express.json(), or ' +
  "give it the raw body: app.post('/hooks', express.raw({ type: '*/*' }), expressHandler(receiver)).";

function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

async function rawBody(req: ExpressRequestLike, limit: number): Promise<Uint8Array | string> {
  const body = req.body;
  if (isBytes(body) || typeof body === 'string') return body;
  if (body !== undefined && body !== null) {
    // Express 4's parsers leave `{}` without reading the stream when the content type did not match.
    const untouched = typeof body === 'object' && Object.keys(body).length === 0 && !req.readableEnded;
    if (!untouched) throw new WebhookError('parsed_body', PARSED_HINT);
  }
  if (req.readableEnded) throw new WebhookError('body_consumed', PARSED_HINT);
  return readNodeBody(req, limit);
}

/** An Express request handler for a receiver (also works as `router.post(path, handler)`). */
export function expressHandler(
  receiver: ReceiverLike,
  options: ExpressHandlerOptions = {},
): (req: ExpressRequestLike, res: NodeResponse) => void {
  return (req, res) => {
    void (async () => {
      let result: ReceiveResult;
      try {
        const body = await rawBody(req, receiver.maxBodyBytes);
        const url = options.publicUrl?.(req) ?? requestUrl(req, req.originalUrl);
        result = await receiver.handle({
          headers: req.headers,
          body,
          url,
          ...(req.method === undefined ? {} : { method: req.method }),
        });
      } catch (error) {
        result = receiver.reject(error);
      }
      sendNodeResult(res, result);
    })();
  };
}
