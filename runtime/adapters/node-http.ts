/**
 * `node:http` adapter: reads the raw body (size-capped) from an `IncomingMessage` and writes the
 * answer. Used by `receiver.node()` and by the Express adapter when no body parser ran.
 */
import { bodyTooLarge, joinChunks } from '../bytes.js';
import { WebhookError } from '../errors.js';
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import type { ReceiveResult } from '../receive/types.js';
import type { NodeAdapterOptions, NodeRequest, NodeResponse } from './node-types.js';
import type { ReceiverLike } from './types.js';

const consumed = (): WebhookError =>
  new WebhookError(
    'body_consumed',
    'The request body stream was already read by other middleware; mount the webhook route before any body parser.',
  );

/** `receiver.node()`'s default body-read deadline (ms): generous for a 5 MiB body on a slow link. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

/** The answer to a body that missed its deadline: 408, and the connection is closed. */
const bodyTimeout = (ms: number): WebhookError =>
  new WebhookError('timeout', `The request body was not received within ${ms} ms`, {
    status: 408,
    details: { bodyTimeoutMs: ms },
  });

/** `invalid_config` unless `bodyTimeoutMs` is a number of ms > 0 (`Infinity`: no deadline). */
export function checkBodyTimeout(options: NodeAdapterOptions | undefined): number {
  const ms = options?.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS;
  if (typeof ms !== 'number' || !(ms > 0)) {
    throw new WebhookError(
      'invalid_config',
      `bodyTimeoutMs must be a number of ms > 0, or Infinity for no deadline (got ${String(ms)})`,
    );
  }
  return ms;
}

/**
 * Reads the whole body as bytes and calls `done` once, with the bytes or a `WebhookError`
 * (`payload_too_large` above `limit`; `timeout`, status 408, when the body is not complete within
 * `timeoutMs`, if given). Callback-shaped: `nodeHandler` runs it per request, and a promise plus its
 * closures per request is measurable at webhook rates.
 */
export function readNodeBodyThen(
  req: NodeRequest,
  limit: number,
  done: (error: WebhookError | undefined, body: Uint8Array | undefined) => void,
  timeoutMs = Number.POSITIVE_INFINITY,
): void {
  if (req.readableEnded) {
    done(consumed(), undefined);
    return;
  }
  const length = req.headers['content-length'];
  if (length !== undefined && Number(length) > limit) {
    done(bodyTooLarge(limit), undefined);
    return;
  }
  let first: Uint8Array | undefined;
  let chunks: Uint8Array[] | undefined;
  let size = 0;
  let settled = false;
  // A total deadline, not an idle one: a byte at a time resets idle timers (socket.setTimeout).
  const timer = Number.isFinite(timeoutMs)
    ? setTimeout(() => {
        if (settled) return;
        settled = true;
        cleanup();
        done(bodyTimeout(timeoutMs), undefined);
      }, timeoutMs)
    : undefined;
  // Never keeps a process alive that is otherwise done.
  (timer as { unref?: () => void } | undefined)?.unref?.();
  const onData = (chunk: Uint8Array | string): void => {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
    size += bytes.byteLength;
    if (size > limit) {
      settled = true;
      cleanup();
      // Discard the rest so the 413 can still be written on this connection.
      req.resume();
      done(bodyTooLarge(limit), undefined);
      return;
    }
    if (first === undefined) first = bytes;
    else if (chunks === undefined) chunks = [first, bytes];
    else chunks.push(bytes);
  };
  const onEnd = (): void => {
    // The request is over: its listeners go with it (removing them costs more than it saves).
    if (settled) return;
    settled = true;
    if (timer !== undefined) clearTimeout(timer);
    // Small bodies arrive in one chunk: hand it over without copying.
    if (chunks === undefined) {
      done(undefined, first ?? new Uint8Array(0));
      return;
    }
    done(undefined, joinChunks(chunks, size));
  };
  const onError = (error: Error): void => {
    cleanup();
    if (settled) return;
    settled = true;
    done(new WebhookError('invalid_body', 'The request body could not be read', { cause: error }), undefined);
  };
  const cleanup = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
}

/** Reads the whole body as bytes; rejects with `payload_too_large` above `limit`. */
export function readNodeBody(req: NodeRequest, limit: number): Promise<Uint8Array> {
  return new Promise<Uint8Array>((resolve, reject) => {
    readNodeBodyThen(req, limit, (error, body) => {
      if (error === undefined) resolve(body as Uint8Array);
      else reject(error);
    });
  });
}

/** The request's URL as the client called it (schemes that sign the URL need it). */
export function requestUrl(req: NodeRequest, path = req.url): string {
  const encrypted = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  const host = req.headers['host'] ?? 'localhost';
  return `${encrypted ? 'https' : 'http'}://${host}${path ?? '/'}`;
}

export function sendNodeResult(res: NodeResponse, result: ReceiveResult): void {
  if (res.headersSent) return;
  res.statusCode = result.status;
  const headers = result.headers;
  if (headers !== undefined)
    for (const name of Object.keys(headers)) res.setHeader(name, headers[name] as string);
  // The rest of the body is not read (413) or never came (408): this connection is done.
  if (result.status === 413 || result.status === 408) res.setHeader('connection', 'close');
  // end(body) with no header written yet lets node:http send Content-Length (writeHead first would
  // switch the answer to chunked encoding: more bytes and a writev per response).
  res.end(result.body);
}

const NODE_ADAPTER_KEYS = { bodyTimeoutMs: true } as const satisfies KnownKeys<NodeAdapterOptions>;

/**
 * A `node:http` request listener for a receiver (`receiver.node(options)`): the body is read with the
 * `maxBodyBytes` cap and the `bodyTimeoutMs` deadline (`invalid_config` for a bad one).
 */
export function nodeHandler(
  receiver: ReceiverLike,
  options?: NodeAdapterOptions,
): (req: NodeRequest, res: NodeResponse) => void {
  checkKnownOptions('receiver.node', options, NODE_ADAPTER_KEYS);
  const limit = receiver.maxBodyBytes;
  const timeoutMs = checkBodyTimeout(options);
  return (req, res) => {
    const rejected = (error: unknown): void => sendNodeResult(res, receiver.reject(error));
    readNodeBodyThen(
      req,
      limit,
      (error, body) => {
        if (error !== undefined) {
          if (error.status === 408) {
            // The trickling client is not waited for: the socket goes once the 408 is written.
            res.once?.('finish', () => req.destroy?.());
          }
          rejected(error);
          return;
        }
        let answer: Promise<ReceiveResult>;
        try {
          answer = receiver.handle({
            headers: req.headers,
            body: body as Uint8Array,
            url: requestUrl(req),
            ...(req.method === undefined ? {} : { method: req.method }),
          });
        } catch (thrown) {
          rejected(thrown);
          return;
        }
        answer.then((result) => sendNodeResult(res, result), rejected);
      },
      timeoutMs,
    );
  };
}
