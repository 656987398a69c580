/**
 * One HTTP delivery attempt over node:http/https: keep-alive agents, an overall deadline, no
 * redirects followed, the response body read only up to a cap, and the socket pinned to the address
 * the SSRF guard checked (the request's `lookup` answers with that address and nothing else).
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction as NetLookupFunction } from 'node:net';
import { WebhookError } from '../errors.js';
import type { ResolvedTarget } from './url-policy.js';

/** Longest response text stored with an attempt. */
export const RESPONSE_SNIPPET_BYTES = 1024;
/** Response bytes read before the connection is dropped (so a huge body cannot pin a worker). */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

export interface AttemptInput {
  readonly target: ResolvedTarget;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
  readonly timeoutMs: number;
  readonly agents?: HttpAgents;
  readonly maxResponseBytes?: number;
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

export interface HttpAgents {
  readonly http: http.Agent;
  readonly https: https.Agent;
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

export function sendAttempt(input: AttemptInput): Promise<AttemptResponse> {
  const { target } = input;
  const started = performance.now();
  const agents = input.agents ?? defaultAgents();
  const isHttps = target.url.protocol === 'https:';
  const cap = input.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  // Node asks the lookup function instead of DNS; answering with the checked address pins the socket.
  const pinned: NetLookupFunction = (_host, options, callback) => {
    const cb = callback as (err: Error | null, address: unknown, family?: number) => void;
    if ((options as { all?: boolean }).all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
  return new Promise<AttemptResponse>((resolve) => {
    let settled = false;
    let status: number | undefined;
    let responseHeaders: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (error?: WebhookError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const text = Buffer.concat(chunks).subarray(0, RESPONSE_SNIPPET_BYTES).toString('utf8');
      resolve({
        ...(status !== undefined ? { status } : {}),
        headers: responseHeaders,
        body: text,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        ...(error && status === undefined ? { error } : {}),
      });
    };
    const request = (isHttps ? https : http).request({
      protocol: target.url.protocol,
      hostname: target.host,
      port: target.url.port === '' ? (isHttps ? 443 : 80) : Number(target.url.port),
      path: `${target.url.pathname}${target.url.search}`,
      method: 'POST',
      headers: { ...input.headers, 'content-length': String(input.body.byteLength) },
      agent: isHttps ? agents.https : agents.http,
      // TLS SNI and certificate checks use the host name; only the socket goes to the pinned address.
      lookup: pinned,
    });
    const timer = setTimeout(() => {
      const error = new WebhookError('timeout', `No complete response within ${input.timeoutMs} ms`, {
        details: { timeoutMs: input.timeoutMs },
      });
      request.destroy(error);
      finish(error);
    }, input.timeoutMs);
    request.on('response', (res) => {
      status = res.statusCode;
      responseHeaders = flattenHeaders(res.headers);
      res.on('data', (chunk: Buffer) => {
        received += chunk.byteLength;
        if (received - chunk.byteLength < RESPONSE_SNIPPET_BYTES) chunks.push(chunk);
        if (received > cap) {
          // Drop the connection rather than read an unbounded body; the status is what counts.
          res.destroy();
          finish();
        }
      });
      res.on('end', () => finish());
      res.on('error', () => finish());
      res.on('close', () => finish());
    });
    request.on('error', (error: Error & { code?: string }) => {
      if (error instanceof WebhookError) return finish(error);
      finish(
        new WebhookError(
          'connection_failed',
          `Connection to ${target.host} failed: ${error.code ?? error.message}`,
          {
            details: { host: target.host, address: target.address, reason: error.code ?? error.message },
            cause: error,
          },
        ),
      );
    });
    request.end(input.body);
  });
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
