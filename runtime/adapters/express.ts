/**
 * Express adapter: `app.post('/hooks', expressHandler(receiver))`.
 *
 * Signatures cover the exact bytes sent, so the handler needs the raw body. It reads the request
 * stream itself when no body parser ran (mount the route before `app.use(express.json())`), and it
 * accepts the Buffer of `express.raw({ type: '*\/*' })`, the string of `express.text()`, or the
 * `req.rawBody` a `express.json({ verify: (req, res, buf) => { req.rawBody = buf } })` saved.
 *
 * When a global JSON parser already consumed the stream (so a route-level `express.raw` sees nothing),
 * the original bytes are gone. The parsed body is then re-serialized as compact JSON and verified: a
 * sender that signs `JSON.stringify` output (this runtime, Standard Webhooks libraries) still verifies,
 * and a signature over those bytes means the sender sent exactly what the handler receives. Any other
 * sender's signature cannot match: when the re-serialized length differs from the Content-Length sent,
 * that is answered 500 `parsed_body` with how to fix the app — the most common webhook bug — rather
 * than a misleading 401.
 */
import { WebhookError } from '../errors.js';
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import type { ReceiveResult } from '../receive/types.js';
import { readNodeBody, requestUrl, sendNodeResult } from './node-http.js';
import type { NodeRequest, NodeResponse } from './node-types.js';
import type { ReceiverLike } from './types.js';

/** The parts of Express's request the adapter reads (structural: no dependency on express). */
export interface ExpressRequestLike extends NodeRequest {
  body?: unknown;
  /** Saved by `express.json({ verify })` (see the module comment). */
  rawBody?: unknown;
  originalUrl?: string;
  protocol?: string;
}

export interface ExpressHandlerOptions {
  /** Public URL of the endpoint, for schemes that sign the URL behind a proxy. Default: from the request. */
  readonly publicUrl?: (req: ExpressRequestLike) => string;
}

const PARSED_HINT =
  'A body parser (e.g. app.use(express.json())) consumed the webhook request before the receiver could ' +
  'verify its signature, which covers the raw bytes. Mount the webhook route before app.use(express.json()), ' +
  'or keep the raw bytes: app.use(express.json({ verify: (req, res, buf) => { req.rawBody = buf } })).';

function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}

/** The raw body, or `reserialized` when only a parsed JSON body is left. */
async function rawBody(
  req: ExpressRequestLike,
  limit: number,
): Promise<{ body: Uint8Array | string; reserialized: boolean }> {
  const saved = req.rawBody;
  if (isBytes(saved) || typeof saved === 'string') return { body: saved, reserialized: false };
  const body = req.body;
  if (isBytes(body) || typeof body === 'string') return { body, reserialized: false };
  if (body !== undefined && body !== null) {
    // Express 4's parsers leave `{}` without reading the stream when the content type did not match.
    const untouched = typeof body === 'object' && Object.keys(body).length === 0 && !req.readableEnded;
    if (!untouched) {
      if (typeof body !== 'object') throw new WebhookError('parsed_body', PARSED_HINT);
      return { body: JSON.stringify(body), reserialized: true };
    }
  }
  if (req.readableEnded) throw new WebhookError('body_consumed', PARSED_HINT);
  return { body: await readNodeBody(req, limit), reserialized: false };
}

const EXPRESS_KEYS = { publicUrl: true } as const satisfies KnownKeys<ExpressHandlerOptions>;

/** An Express request handler for a receiver (also works as `router.post(path, handler)`). */
export function expressHandler(
  receiver: ReceiverLike,
  options: ExpressHandlerOptions = {},
): (req: ExpressRequestLike, res: NodeResponse) => void {
  checkKnownOptions('expressHandler', options, EXPRESS_KEYS);
  return (req, res) => {
    void (async () => {
      let result: ReceiveResult;
      try {
        const { body, reserialized } = await rawBody(req, receiver.maxBodyBytes);
        const url = options.publicUrl?.(req) ?? requestUrl(req, req.originalUrl);
        result = await receiver.handle({
          headers: req.headers,
          body,
          url,
          ...(req.method === undefined ? {} : { method: req.method }),
        });
        // Same length as sent: those were compact bytes, and a mismatch is a real bad signature (401).
        // Another length: the sender's formatting was lost with the stream, so say how to fix the app.
        if (
          reserialized &&
          result.error?.code === 'invalid_signature' &&
          req.headers['content-length'] !== String(Buffer.byteLength(body as string))
        ) {
          result = receiver.reject(new WebhookError('parsed_body', PARSED_HINT));
        }
      } catch (error) {
        result = receiver.reject(error);
      }
      sendNodeResult(res, result);
    })();
  };
}
