/**
 * AWS Lambda adapter: `export const handler = lambdaHandler(receiver)` behind API Gateway (REST
 * APIs, HTTP APIs with payload 1.0 or 2.0) or a Function URL. The event is turned into the request
 * the receiver verifies: the body's exact bytes (base64 decoded to bytes when AWS encoded it, never
 * through a string), the headers (v2's `cookies` back as a Cookie header), the method and the URL
 * with its query (GET handshakes read it). Web APIs only: it is in the Web entry too.
 */
import { bodyTooLarge, utf8 } from '../bytes.js';
import { WebhookError } from '../errors.js';
import type { ReceiveRequest, ReceiveResult } from '../receive/types.js';
import { decodeBase64 } from '../signing/encoding.js';
import type {
  LambdaEventV1,
  LambdaEventV2,
  LambdaHandlerOptions,
  LambdaHttpHandler,
  LambdaHttpResult,
} from './lambda-types.js';
import type { ReceiverLike } from './types.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/** 2.0 when it has v2's `requestContext.http`, 1.0 when it has `httpMethod`; else `invalid_body`. */
function payloadVersion(event: unknown): 1 | 2 {
  if (isObject(event) && isObject(event['requestContext'])) {
    const http = event['requestContext']['http'];
    if (isObject(http) && typeof http['method'] === 'string') return 2;
    if (typeof event['httpMethod'] === 'string') return 1;
  }
  throw new WebhookError(
    'invalid_body',
    'The Lambda event is not an HTTP request from API Gateway (REST or HTTP API) or a Function URL: ' +
      'expected requestContext.http.method (payload 2.0) or httpMethod with requestContext (payload 1.0). ' +
      'Wire lambdaHandler to an HTTP trigger only.',
  );
}

/** The raw body: base64 decoded to its bytes, or the text's UTF-8 bytes. */
function bodyOf(body: string | null | undefined, base64: boolean | undefined, limit: number): Uint8Array {
  if (body === undefined || body === null || body === '') return new Uint8Array(0);
  // 4 base64 characters carry 3 bytes: refuse before decoding what cannot fit.
  if ((base64 === true ? Math.floor((body.length * 3) / 4) - 2 : body.length) > limit) {
    throw bodyTooLarge(limit);
  }
  const bytes = base64 === true ? decodeBase64(body) : utf8(body);
  if (bytes === undefined) {
    throw new WebhookError('invalid_body', 'The event says isBase64Encoded but its body is not base64');
  }
  if (bytes.byteLength > limit) throw bodyTooLarge(limit);
  return bytes;
}

function lowerCased(headers: { readonly [name: string]: string | readonly string[] | undefined }) {
  const out: Record<string, string | readonly string[]> = {};
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value !== undefined) out[name.toLowerCase()] = value;
  }
  return out;
}

function requestV1(event: LambdaEventV1, limit: number): ReceiveRequest {
  // multiValueHeaders has every value of a repeated header; headers only the last one.
  const headers = { ...lowerCased(event.headers ?? {}), ...lowerCased(event.multiValueHeaders ?? {}) };
  const query = new URLSearchParams();
  const multi = event.multiValueQueryStringParameters;
  const single = event.queryStringParameters ?? {};
  for (const name of Object.keys(multi ?? single)) {
    const values = multi ? multi[name] : [single[name]];
    for (const value of values ?? []) if (value !== undefined) query.append(name, value);
  }
  const host = firstValue(headers['host']) ?? event.requestContext.domainName ?? 'localhost';
  const search = query.toString() === '' ? '' : `?${query}`;
  return {
    headers,
    body: bodyOf(event.body, event.isBase64Encoded, limit),
    method: event.httpMethod,
    url: `https://${host}${event.requestContext.path ?? event.path ?? '/'}${search}`,
  };
}

function requestV2(event: LambdaEventV2, limit: number): ReceiveRequest {
  const headers = lowerCased(event.headers ?? {});
  if (event.cookies !== undefined && event.cookies.length > 0) headers['cookie'] = event.cookies.join('; ');
  const host = firstValue(headers['host']) ?? event.requestContext.domainName ?? 'localhost';
  const path = event.rawPath ?? event.requestContext.http.path ?? '/';
  const raw = event.rawQueryString ?? '';
  return {
    headers,
    body: bodyOf(event.body, event.isBase64Encoded, limit),
    method: event.requestContext.http.method,
    url: `https://${host}${path}${raw === '' ? '' : `?${raw}`}`,
  };
}

const firstValue = (value: string | readonly string[] | undefined): string | undefined =>
  typeof value === 'string' ? value : value?.[0];

/** The receiver's answer as a Lambda result (valid for payload 1.0 and 2.0 alike). */
export function toLambdaResult(result: ReceiveResult): LambdaHttpResult {
  return {
    statusCode: result.status,
    headers: { ...result.headers },
    body: result.body,
    isBase64Encoded: false,
  };
}

/** A Lambda handler for a receiver: `export const handler = lambdaHandler(receiver)`. */
export function lambdaHandler(receiver: ReceiverLike, options: LambdaHandlerOptions = {}): LambdaHttpHandler {
  return async (event) => {
    let request: ReceiveRequest;
    try {
      const limit = receiver.maxBodyBytes;
      const built =
        payloadVersion(event) === 2
          ? requestV2(event as LambdaEventV2, limit)
          : requestV1(event as LambdaEventV1, limit);
      request = options.publicUrl === undefined ? built : { ...built, url: options.publicUrl(event) };
    } catch (error) {
      return toLambdaResult(receiver.reject(error));
    }
    return toLambdaResult(await receiver.handle(request));
  };
}
