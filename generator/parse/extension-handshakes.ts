/**
 * `x-gen-webhooks.handshakes`: the endpoint handshakes a contract's provider sends, validated
 * strictly against runtime/handshake-config.ts (the generated receiver answers them by itself).
 * Every mistake is an `invalid_extension` error naming the JSON pointer and what was expected.
 */
import type {
  EchoHandshake,
  HandshakeConfig,
  HandshakeMatch,
  HandshakeSource,
  HmacTokenHandshake,
} from '@gen-webhooks/runtime';
import { child, type Loc } from '../load/document-store.js';
import { fail, number, object, oneOf, onlyKeys, text } from './extension-values.js';

function pointer(loc: Loc, what: string): string {
  if (typeof loc.value !== 'string' || (loc.value !== '' && !loc.value.startsWith('/'))) {
    fail(loc, `${what} must be a JSON pointer into the body`, 'a JSON pointer such as "/challenge"');
  }
  return loc.value;
}

function bool(loc: Loc, what: string): boolean {
  if (typeof loc.value !== 'boolean') fail(loc, `${what} must be true or false`, 'a boolean');
  return loc.value;
}

function source(loc: Loc, what: string): HandshakeSource {
  const value = object(loc, what);
  onlyKeys(loc, value, ['body', 'query'], what);
  const keys = Object.keys(value);
  if (keys.length !== 1)
    fail(
      loc,
      `${what} must name exactly one of body, query`,
      '{ body: <JSON pointer> } or { query: <name> }',
    );
  return 'body' in value
    ? { body: pointer(child(loc, 'body'), `${what}.body`) }
    : { query: text(child(loc, 'query'), `${what}.query`) };
}

function match(loc: Loc): HandshakeMatch {
  const value = object(loc, 'when');
  onlyKeys(loc, value, ['body', 'query'], 'when');
  const out: { body?: Record<string, string | number | boolean>; query?: Record<string, string> } = {};
  if (value.body !== undefined) {
    const bodyLoc = child(loc, 'body');
    const body: Record<string, string | number | boolean> = {};
    for (const [key, expected] of Object.entries(object(bodyLoc, 'when.body'))) {
      const at = child(bodyLoc, key);
      if (key !== '' && !key.startsWith('/'))
        fail(at, `when.body key "${key}" is not a JSON pointer`, 'a JSON pointer such as "/type"');
      if (!['string', 'number', 'boolean'].includes(typeof expected)) {
        fail(at, `when.body ${key} must be a string, number or boolean`, 'a scalar value');
      }
      body[key] = expected as string | number | boolean;
    }
    out.body = body;
  }
  if (value.query !== undefined) {
    const queryLoc = child(loc, 'query');
    const query: Record<string, string> = {};
    for (const key of Object.keys(object(queryLoc, 'when.query'))) {
      query[key] = text(child(queryLoc, key), `when.query ${key}`);
    }
    out.query = query;
  }
  return out;
}

function echo(loc: Loc, value: Record<string, unknown>): EchoHandshake {
  onlyKeys(
    loc,
    value,
    ['kind', 'method', 'signed', 'challenge', 'verifyToken', 'when', 'respond'],
    'an "echo" handshake',
  );
  const method =
    value.method === undefined
      ? undefined
      : oneOf(child(loc, 'method'), ['GET', 'POST'] as const, 'handshake method');
  const challenge = source(child(loc, 'challenge'), 'challenge');
  if (method === 'GET' && 'body' in challenge) {
    fail(
      child(child(loc, 'challenge'), 'body'),
      'a GET handshake has no body to read the challenge from',
      '{ query: <name> }',
    );
  }
  const verifyToken =
    value.verifyToken === undefined ? undefined : source(child(loc, 'verifyToken'), 'verifyToken');
  if (method === 'GET' && verifyToken !== undefined && 'body' in verifyToken) {
    fail(
      child(child(loc, 'verifyToken'), 'body'),
      'a GET handshake has no body to read the verify token from',
      '{ query: <name> }',
    );
  }
  let respond: EchoHandshake['respond'];
  if (value.respond !== undefined) {
    const respondLoc = child(loc, 'respond');
    const r = object(respondLoc, 'respond');
    const kind = oneOf(child(respondLoc, 'kind'), ['text', 'json'] as const, 'respond kind');
    onlyKeys(respondLoc, r, kind === 'json' ? ['kind', 'field'] : ['kind'], `a "${kind}" respond`);
    respond = kind === 'json' ? { kind, field: text(child(respondLoc, 'field'), 'respond.field') } : { kind };
  }
  return {
    kind: 'echo',
    ...(method === undefined ? {} : { method }),
    ...(value.signed === undefined ? {} : { signed: bool(child(loc, 'signed'), 'signed') }),
    challenge,
    ...(verifyToken === undefined ? {} : { verifyToken }),
    ...(value.when === undefined ? {} : { when: match(child(loc, 'when')) }),
    ...(respond === undefined ? {} : { respond }),
  };
}

function hmacToken(loc: Loc, value: Record<string, unknown>): HmacTokenHandshake {
  const keys = ['kind', 'signed', 'token', 'when', 'algorithm', 'encoding', 'respond'];
  onlyKeys(loc, value, keys, 'an "hmac-token" handshake');
  // The answer is a MAC under the key deliveries are verified with: given to an unverified caller,
  // it signs whatever that caller chose as the token (a signing oracle).
  if (value.signed !== undefined && bool(child(loc, 'signed'), 'signed') === false) {
    fail(
      child(loc, 'signed'),
      'an "hmac-token" handshake must be signed: its answer is an HMAC under the delivery secret, so an unsigned one would sign any token an anonymous caller sends',
      'true (or no signed key): answered only after the request verified',
    );
  }
  const respondLoc = child(loc, 'respond');
  onlyKeys(respondLoc, object(respondLoc, 'respond'), ['tokenField', 'hashField'], 'respond');
  return {
    kind: 'hmac-token',
    ...(value.signed === undefined ? {} : { signed: true }),
    token: source(child(loc, 'token'), 'token'),
    ...(value.when === undefined ? {} : { when: match(child(loc, 'when')) }),
    algorithm: oneOf(child(loc, 'algorithm'), ['sha256', 'sha512'] as const, 'handshake algorithm'),
    encoding: oneOf(child(loc, 'encoding'), ['hex', 'base64'] as const, 'handshake encoding'),
    respond: {
      tokenField: text(child(respondLoc, 'tokenField'), 'respond.tokenField'),
      hashField: text(child(respondLoc, 'hashField'), 'respond.hashField'),
    },
  };
}

function handshake(loc: Loc): HandshakeConfig {
  const value = object(loc, 'handshake');
  const kind = oneOf(child(loc, 'kind'), ['echo', 'hmac-token', 'cloudevents'] as const, 'handshake kind');
  if (kind === 'echo') return echo(loc, value);
  if (kind === 'hmac-token') return hmacToken(loc, value);
  onlyKeys(loc, value, ['kind', 'allowedOrigins', 'allowedRate'], 'a "cloudevents" handshake');
  const originsLoc = child(loc, 'allowedOrigins');
  let allowedOrigins: readonly string[] | '*';
  if (originsLoc.value === '*') allowedOrigins = '*';
  else if (Array.isArray(originsLoc.value) && originsLoc.value.length > 0) {
    allowedOrigins = originsLoc.value.map((_, i) => text(child(originsLoc, i), 'allowed origin'));
  } else
    fail(
      originsLoc,
      'allowedOrigins must be "*" or a non-empty list of origins',
      '"*" or a list such as [webhooks.example.com]',
    );
  return {
    kind,
    allowedOrigins,
    ...(value.allowedRate === undefined
      ? {}
      : { allowedRate: number(child(loc, 'allowedRate'), 'allowedRate', 1, { integer: true }) }),
  };
}

/** `loc` = `/x-gen-webhooks/handshakes`: a non-empty sequence of handshakes. */
export function readHandshakes(loc: Loc): readonly HandshakeConfig[] {
  if (!Array.isArray(loc.value) || loc.value.length === 0) {
    fail(
      loc,
      'handshakes must be a non-empty list',
      'a list of handshakes ({ kind: echo | hmac-token | cloudevents, … })',
    );
  }
  const out = loc.value.map((_, i) => handshake(child(loc, i)));
  const cloudevents = out.findIndex(
    (h, i) => h.kind === 'cloudevents' && out.findIndex((o) => o.kind === 'cloudevents') !== i,
  );
  if (cloudevents >= 0)
    fail(
      child(loc, cloudevents),
      'only one "cloudevents" handshake may be declared',
      'a single cloudevents entry',
    );
  return out;
}
