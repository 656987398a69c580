/**
 * One HTTP request with exact bytes and exact headers (node:http, not fetch: fetch adds and normalises
 * headers, and forwarding/replaying must send what was captured). Measures the time to the full
 * response and maps socket errors to one explained line.
 */
import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { GeneratorError } from '../errors.js';
import { requestError } from './net-errors.js';

export interface OutgoingRequest {
  readonly url: string;
  readonly method?: string;
  /** Header pairs in the order to send; names keep their case. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Uint8Array;
  /** Time limit for the whole exchange, in milliseconds. */
  readonly timeoutMs: number;
}

export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly durationMs: number;
}

/** Headers that belong to one connection and are never forwarded or replayed (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

/** Drops hop-by-hop headers (and `host`/`content-length`, which the new request sets itself). */
export function endToEndHeaders(pairs: ReadonlyArray<readonly [string, string]>): Array<[string, string]> {
  return pairs.filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())).map(([n, v]) => [n, v]);
}

export function sendHttp(command: string, input: OutgoingRequest): Promise<HttpResponse> {
  const url = new URL(input.url);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  // Repeated names (e.g. two Set-Cookie-style headers) must stay separate values, so build arrays.
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of input.headers) {
    const existing = headers[name];
    headers[name] =
      existing === undefined ? value : [...(Array.isArray(existing) ? existing : [String(existing)]), value];
  }
  headers['content-length'] = String(input.body.byteLength);
  const started = performance.now();
  return new Promise<HttpResponse>((resolve, reject) => {
    const req = request(
      url,
      { method: input.method ?? 'POST', headers, agent: false, timeout: input.timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => reject(requestError(command, input.url, error)));
        res.on('end', () => {
          clearTimeout(deadline);
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            headers: res.headers,
            body: Buffer.concat(chunks),
            durationMs: performance.now() - started,
          });
        });
      },
    );
    // `timeout` above only covers socket idleness; this bounds the whole exchange.
    const deadline = setTimeout(() => {
      req.destroy(
        new GeneratorError(
          'network_error',
          `${command}: no complete response from ${url.host} within ${input.timeoutMs}ms (timeout)`,
          { expected: 'a faster answer, or a longer --timeout' },
        ),
      );
    }, input.timeoutMs);
    req.on('timeout', () => req.destroy(Object.assign(new Error('socket timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (error) => {
      clearTimeout(deadline);
      reject(error instanceof GeneratorError ? error : requestError(command, input.url, error));
    });
    req.end(Buffer.from(input.body.buffer, input.body.byteOffset, input.body.byteLength));
  });
}
