/**
 * One HTTP delivery attempt over node:http/https: keep-alive agents, an overall deadline, no
 * redirects followed, the response body read only up to a cap, and the socket pinned to the address
 * the SSRF guard checked (the request's `lookup` answers with that address and nothing else).
 *
 * This is the per-delivery hot path, so per-target work (port, path, Host header, the pinned lookup)
 * is done once per checked target, headers go to node as one flat list (no per-header map), a string
 * body goes out in the same write as the headers, and the event handlers are shared functions that
 * find their attempt on the request instead of closures made for every request.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction as NetLookupFunction } from 'node:net';
import { WebhookError } from '../errors.js';
import { onAbort } from './abort-fanout.js';
import type { ResolvedTarget } from './url-policy.js';

/** Longest response text stored with an attempt. */
export const RESPONSE_SNIPPET_BYTES = 1024;
/** Response bytes read before the connection is dropped (so a huge body cannot pin a worker). */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

export interface AttemptInput {
  readonly target: ResolvedTarget;
  readonly headers: Readonly<Record<string, string>>;
  /** The exact bytes to send; a string is sent as UTF-8. */
  readonly body: string | Uint8Array;
  readonly timeoutMs: number;
  readonly agents?: HttpAgents;
  readonly maxResponseBytes?: number;
  /** Default `POST`; endpoint verification sends the CloudEvents `OPTIONS` handshake. */
  readonly method?: 'POST' | 'OPTIONS';
  /**
   * Aborts the exchange (the worker's shutdown deadline): the socket is destroyed and the attempt
   * ends with `connection_failed` (reason `aborted`) unless a status line had already arrived.
   */
  readonly signal?: AbortSignal;
}

export interface AttemptResponse {
  /** HTTP status, when a response arrived. */
  readonly status?: number;
  /** Response headers, lower-case names, repeated values joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** First bytes of the response body as text (≤ 1 KiB). */
  readonly body: string;
  readonly durationMs: number;
  /** Transport failure (`timeout`, `connection_failed`), when no complete status line arrived. */
  readonly error?: WebhookError;
}

/**
 * node:http and node:https keep-alive `Agent`s (from `createAgents`), typed by the one method callers
 * use, so the runtime's types need no `@types/node`.
 */
export interface HttpAgents {
  readonly http: { destroy(): void };
  readonly https: { destroy(): void };
}

/** Keep-alive agents; one pair per worker, destroyed by `stop()`. */
export function createAgents(options: { maxSockets?: number } = {}): HttpAgents {
  const common = {
    keepAlive: true,
    keepAliveMsecs: 1000,
    maxSockets: options.maxSockets ?? 256,
    scheduling: 'lifo' as const,
  };
  return { http: new http.Agent(common), https: new https.Agent(common) };
}

let sharedAgents: HttpAgents | undefined;
function defaultAgents(): HttpAgents {
  sharedAgents ??= createAgents();
  return sharedAgents;
}

/** What every request to one checked target shares. */
interface RequestPlan {
  readonly https: boolean;
  readonly port: number;
  readonly path: string;
  /** As node would write it: brackets around IPv6, the port unless it is the default. */
  readonly hostHeader: string;
  /** Answers with the checked address only: the socket cannot go anywhere else (no rebinding). */
  readonly lookup: NetLookupFunction;
}

// Keyed by the target object: a re-resolved target is a new object with its own pinned lookup.
const plans = new WeakMap<ResolvedTarget, RequestPlan>();

function planFor(target: ResolvedTarget): RequestPlan {
  let plan = plans.get(target);
  if (plan) return plan;
  const isHttps = target.url.protocol === 'https:';
  const port = target.url.port === '' ? (isHttps ? 443 : 80) : Number(target.url.port);
  const name = target.host.includes(':') ? `[${target.host}]` : target.host;
  const { address, family } = target;
  // Node asks the lookup function instead of DNS; answering with the checked address pins the socket.
  const lookup: NetLookupFunction = (_host, options, callback) => {
    const cb = callback as (err: Error | null, address: unknown, family?: number) => void;
    if ((options as { all?: boolean }).all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  };
  plan = {
    https: isHttps,
    port,
    path: `${target.url.pathname}${target.url.search}`,
    hostHeader: target.url.port === '' ? name : `${name}:${port}`,
    lookup,
  };
  plans.set(target, plan);
  return plan;
}

const NON_ASCII = /[^\x00-\x7f]/;

/** Node's header list: `[name, value, name, value, …]`; later names replace earlier ones, any case. */
function headerList(headers: Readonly<Record<string, string>>, plan: RequestPlan, length: number): string[] {
  let lowerCase = true;
  for (const name in headers) {
    if (name !== name.toLowerCase()) {
      lowerCase = false;
      break;
    }
  }
  let source = headers;
  if (!lowerCase) {
    // Same rule as `setHeader`: names are case-insensitive and the last one set wins.
    const merged: Record<string, string> = {};
    for (const name in headers) merged[name.toLowerCase()] = headers[name] as string;
    source = merged;
  }
  const list: string[] = [];
  if (source['host'] === undefined) list.push('host', plan.hostHeader);
  for (const name in source) {
    if (name !== 'content-length') list.push(name, source[name] as string);
  }
  list.push('content-length', String(length));
  return list;
}

const kAttempt = Symbol('gen-webhooks attempt');

/** The state of one attempt, reachable from its request and its response (`[kAttempt]`). */
class Attempt {
  settled = false;
  status: number | undefined = undefined;
  headers: Record<string, string> = EMPTY;
  chunks: Buffer[] = [];
  received = 0;
  timer: NodeJS.Timeout | undefined = undefined;
  request: http.ClientRequest | undefined = undefined;
  /** Removes the abort listener (set only when the input has a signal). */
  unlisten: (() => void) | undefined = undefined;
  readonly target: ResolvedTarget;
  readonly started: number;
  readonly cap: number;
  readonly timeoutMs: number;
  readonly resolve: (response: AttemptResponse) => void;
  constructor(
    target: ResolvedTarget,
    started: number,
    cap: number,
    timeoutMs: number,
    resolve: (response: AttemptResponse) => void,
  ) {
    this.target = target;
    this.started = started;
    this.cap = cap;
    this.timeoutMs = timeoutMs;
    this.resolve = resolve;
  }

  finish(error?: WebhookError): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.unlisten?.();
    const { chunks } = this;
    const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    const text = bytes.byteLength === 0 ? '' : bytes.subarray(0, RESPONSE_SNIPPET_BYTES).toString('utf8');
    const durationMs = Math.round((performance.now() - this.started) * 100) / 100;
    this.resolve(
      this.status !== undefined
        ? { status: this.status, headers: this.headers, body: text, durationMs }
        : error
          ? { headers: this.headers, body: text, durationMs, error }
          : { headers: this.headers, body: text, durationMs },
    );
  }
}

const EMPTY: Record<string, string> = Object.freeze({}) as Record<string, string>;

type AttemptRequest = http.ClientRequest & { [kAttempt]: Attempt };
type AttemptResponseMessage = http.IncomingMessage & { [kAttempt]: Attempt };

function onTimeout(attempt: Attempt): void {
  const error = new WebhookError('timeout', `No complete response within ${attempt.timeoutMs} ms`, {
    details: { timeoutMs: attempt.timeoutMs },
  });
  attempt.request?.destroy(error);
  attempt.finish(error);
}

function abortAttempt(attempt: Attempt): void {
  const { host } = attempt.target;
  const error = new WebhookError('connection_failed', `Attempt to ${host} aborted: the worker is stopping`, {
    details: { host, reason: 'aborted' },
  });
  attempt.request?.destroy(error);
  attempt.finish(error);
}

function onResponse(this: AttemptRequest, res: http.IncomingMessage): void {
  const attempt = this[kAttempt];
  (res as AttemptResponseMessage)[kAttempt] = attempt;
  attempt.status = res.statusCode;
  attempt.headers = flattenHeaders(res.headers);
  res.on('data', onData);
  res.on('end', onEnd);
  res.on('error', onEnd);
  res.on('close', onEnd);
}

function onData(this: AttemptResponseMessage, chunk: Buffer): void {
  const attempt = this[kAttempt];
  attempt.received += chunk.byteLength;
  if (attempt.received - chunk.byteLength < RESPONSE_SNIPPET_BYTES) attempt.chunks.push(chunk);
  if (attempt.received > attempt.cap) {
    // Drop the connection rather than read an unbounded body; the status is what counts.
    this.destroy();
    attempt.finish();
  }
}

function onEnd(this: AttemptResponseMessage): void {
  this[kAttempt].finish();
}

function onRequestError(this: AttemptRequest, error: Error & { code?: string }): void {
  const attempt = this[kAttempt];
  if (error instanceof WebhookError) {
    attempt.finish(error);
    return;
  }
  const { target } = attempt;
  // The message and details reach the customer (attempt errors, verification failures): the host
  // only, never the pinned address or a socket message naming it. The cause keeps both.
  const reason = error.code ?? 'network_error';
  attempt.finish(
    new WebhookError('connection_failed', `Connection to ${target.host} failed: ${reason}`, {
      details: { host: target.host, reason },
      cause: error,
    }),
  );
}

export function sendAttempt(input: AttemptInput): Promise<AttemptResponse> {
  const { target, body } = input;
  const started = performance.now();
  const agents = input.agents ?? defaultAgents();
  const plan = planFor(target);
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  const headers = headerList(input.headers, plan, length);
  // Node writes a string body in one go with the head, the head then encoded as UTF-8 like the body.
  // Header values may carry latin1 bytes; only then send the body as bytes (the head stays latin1).
  const payload =
    typeof body === 'string' && headers.some((part) => NON_ASCII.test(part)) ? Buffer.from(body) : body;
  return new Promise<AttemptResponse>((resolve) => {
    const attempt = new Attempt(
      target,
      started,
      input.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      input.timeoutMs,
      resolve,
    );
    const request = (plan.https ? https : http).request({
      protocol: plan.https ? 'https:' : 'http:',
      hostname: target.host,
      port: plan.port,
      path: plan.path,
      method: input.method ?? 'POST',
      headers,
      agent: (plan.https ? agents.https : agents.http) as http.Agent,
      // TLS SNI and certificate checks use the host name; only the socket goes to the pinned address.
      lookup: plan.lookup,
    }) as AttemptRequest;
    request[kAttempt] = attempt;
    attempt.request = request;
    attempt.timer = setTimeout(onTimeout, input.timeoutMs, attempt);
    request.on('response', onResponse);
    request.on('error', onRequestError);
    request.end(payload);
    const { signal } = input;
    if (signal !== undefined) attempt.unlisten = onAbort(signal, () => abortAttempt(attempt));
  });
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
