/**
 * Answers the handshakes a contract declares (`contract.handshakes`, runtime/handshake-config.ts) and
 * the sender's own endpoint verification event, so a generated receiver needs no code for them.
 * Nothing here claims or stores anything: a handshake never blocks a real event as a duplicate.
 *
 * - `before(request)`: handshakes answered before verification (unsigned echoes, CloudEvents OPTIONS).
 * - `after(body)`: signed handshakes, answered once the request verified.
 */
import { toText } from '../bytes.js';
import type { Contract, EventMapBase } from '../contract.js';
import { WebhookError } from '../errors.js';
import type { HandshakeConfig, HandshakeMatch, HandshakeSource } from '../handshake-config.js';
import { headerValue, jsonResponse } from '../presets/support.js';
import type { HandshakeRequest, HandshakeResponse } from '../presets/types.js';
import { equalText } from '../presets/web-crypto.js';
import { emptyResponse, isRecord, textResponse } from '../presets/web-support.js';
import { encodeBase64, encodeHex } from '../signing/encoding.js';
import type { Secret } from '../signing/scheme.js';
import { keyList } from '../signing/verification-key.js';
import { CHALLENGE, verificationAnswer } from './verification-event.js';

const ORIGIN_HEADER = 'webhook-request-origin';

export interface ContractHandshakes {
  /** Absent when nothing is answered before verification (no await on the hot path). */
  readonly before?: (request: HandshakeRequest) => Promise<HandshakeResponse | undefined>;
  /** Synchronous unless a signed handshake is declared. */
  readonly after: (
    request: HandshakeRequest,
    body: unknown,
  ) => HandshakeResponse | undefined | Promise<HandshakeResponse | undefined>;
}

/** `/a/b~1c` → the value at that JSON pointer, or undefined. */
function at(value: unknown, pointer: string): unknown {
  if (pointer === '') return value;
  let current = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function query(url: string | undefined): URLSearchParams | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url, 'http://localhost').searchParams;
  } catch {
    return undefined;
  }
}

function raw(source: HandshakeSource, body: unknown, params: URLSearchParams | undefined): unknown {
  return 'body' in source ? at(body, source.body) : (params?.get(source.query) ?? undefined);
}

function read(
  source: HandshakeSource,
  body: unknown,
  params: URLSearchParams | undefined,
): string | undefined {
  const value = raw(source, body, params);
  return typeof value === 'string' && CHALLENGE.test(value) ? value : undefined;
}

/** The request's verify token equals the configured one (constant time; absent never equals). */
function tokenMatches(
  source: HandshakeSource,
  body: unknown,
  params: URLSearchParams | undefined,
  expected: string,
): boolean {
  const value = raw(source, body, params);
  return typeof value === 'string' && equalText(value, expected);
}

function matches(
  when: HandshakeMatch | undefined,
  body: unknown,
  params: URLSearchParams | undefined,
): boolean {
  for (const [pointer, expected] of Object.entries(when?.body ?? {})) {
    if (at(body, pointer) !== expected) return false;
  }
  for (const [name, expected] of Object.entries(when?.query ?? {})) {
    if (params?.get(name) !== expected) return false;
  }
  return true;
}

function parsed(bytes: HandshakeRequest['body']): unknown {
  if (bytes === undefined || bytes.byteLength === 0) return undefined;
  try {
    return JSON.parse(toText(bytes));
  } catch {
    return undefined;
  }
}

const HASHES = { sha256: 'SHA-256', sha512: 'SHA-512' } as const;

async function hmac(secret: Secret, algorithm: 'sha256' | 'sha512', text: string): Promise<Uint8Array> {
  const key = await globalThis.crypto.subtle.importKey(
    'raw',
    (typeof secret === 'string' ? new TextEncoder().encode(secret) : secret) as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: HASHES[algorithm] },
    false,
    ['sign'],
  );
  return new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', key, new TextEncoder().encode(text)));
}

const signedOf = (config: HandshakeConfig): boolean =>
  config.kind === 'cloudevents'
    ? false
    : (config.signed ?? !(config.kind === 'echo' && config.method === 'GET'));

async function answer(
  config: HandshakeConfig,
  request: HandshakeRequest,
  body: unknown,
  secrets: readonly Secret[],
  verifyToken: string | undefined,
): Promise<HandshakeResponse | undefined> {
  const method = request.method?.toUpperCase() ?? 'POST';
  if (config.kind === 'cloudevents') {
    if (method !== 'OPTIONS') return undefined;
    const origin = headerValue(request.headers, ORIGIN_HEADER);
    if (origin === undefined) return undefined;
    const allowed =
      config.allowedOrigins === '*' ||
      config.allowedOrigins.some((one) => one.toLowerCase() === origin.toLowerCase());
    if (!allowed) return emptyResponse(403);
    return emptyResponse(200, {
      'webhook-allowed-origin': origin,
      'webhook-allowed-rate': String(config.allowedRate ?? '*'),
      allow: 'POST, OPTIONS',
    });
  }
  if (method !== (config.kind === 'echo' ? (config.method ?? 'POST') : 'POST')) return undefined;
  const params = query(request.url);
  if (!matches(config.when, body, params)) return undefined;
  if (config.kind === 'echo') {
    // A wrong or missing token is refused before the challenge is even read: nothing is echoed.
    if (
      config.verifyToken !== undefined &&
      !tokenMatches(config.verifyToken, body, params, verifyToken ?? '')
    ) {
      return emptyResponse(403);
    }
    const challenge = read(config.challenge, body, params);
    if (challenge === undefined) return undefined;
    const respond = config.respond ?? { kind: 'text' };
    return respond.kind === 'text'
      ? textResponse(200, challenge)
      : jsonResponse(200, { [respond.field]: challenge });
  }
  const token = read(config.token, body, params);
  const secret = secrets[0];
  if (token === undefined || secret === undefined) return undefined;
  const mac = await hmac(secret, config.algorithm, token);
  return jsonResponse(200, {
    [config.respond.tokenField]: token,
    [config.respond.hashField]: config.encoding === 'hex' ? encodeHex(mac) : encodeBase64(mac),
  });
}

/**
 * The receiver part (`handshakes: contractHandshakes`): the handshakes `contract` declares, with the
 * sender's endpoint verification event unless the contract has an event of that name itself.
 */
export function contractHandshakes(
  contract: Contract<EventMapBase>,
  o: { readonly secret?: Secret | readonly Secret[] | undefined; readonly verifyToken?: string | undefined },
): ContractHandshakes | undefined {
  return declaredHandshakes(contract.handshakes ?? [], keyList(o.secret), {
    verificationEvent: !Object.hasOwn(contract.events, 'webhook.verification'),
    verifyToken: o.verifyToken,
  });
}

/**
 * `invalid_config` for an `hmac-token` handshake answered before verification: its answer is an HMAC
 * under the key deliveries are verified with, so an anonymous caller could have any token signed
 * (a signing oracle). The generator refuses it too; this guards hand-written contracts and parts.
 */
export function refuseUnsignedHmacToken(configs: readonly HandshakeConfig[]): void {
  const index = configs.findIndex((c) => c.kind === 'hmac-token' && c.signed === false);
  if (index < 0) return;
  throw new WebhookError(
    'invalid_config',
    'an hmac-token handshake must be signed (signed: true, the default): its answer is an HMAC under the delivery secret, so answering it before verification would sign any token for anyone',
    { details: { pointer: `/x-gen-webhooks/handshakes/${index}/signed` } },
  );
}

export function declaredHandshakes(
  configs: readonly HandshakeConfig[],
  secrets: readonly Secret[],
  options: { readonly verificationEvent: boolean; readonly verifyToken?: string | undefined },
): ContractHandshakes | undefined {
  refuseUnsignedHmacToken(configs);
  const tokenIndex = configs.findIndex((c) => c.kind === 'echo' && c.verifyToken !== undefined);
  if (tokenIndex >= 0 && (options.verifyToken === undefined || options.verifyToken === '')) {
    throw new WebhookError(
      'invalid_config',
      "the contract's echo handshake checks a verify token: pass createReceiver({ verifyToken }), the token you gave the provider",
      { details: { pointer: `/x-gen-webhooks/handshakes/${tokenIndex}/verifyToken` } },
    );
  }
  const { verifyToken } = options;
  const unsigned = configs.filter((c) => !signedOf(c));
  const signed = configs.filter(signedOf);
  if (unsigned.length === 0 && signed.length === 0 && !options.verificationEvent) return undefined;
  const verification = options.verificationEvent ? verificationAnswer : () => undefined;
  return {
    ...(unsigned.length === 0
      ? {}
      : {
          before: async (request: HandshakeRequest) => {
            const body = parsed(request.body);
            for (const config of unsigned) {
              const out = await answer(config, request, body, secrets, verifyToken);
              if (out !== undefined) return out;
            }
            return undefined;
          },
        }),
    after:
      signed.length === 0
        ? (_request, body) => verification(body)
        : async (request, body) => {
            for (const config of signed) {
              const out = await answer(config, request, body, secrets, verifyToken);
              if (out !== undefined) return out;
            }
            return verification(body);
          },
  };
}
