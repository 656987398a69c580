/**
 * What a provider preset's scheme needs from a crypto library, so one preset file serves every runtime:
 * the Node entry binds node:crypto (`crypto-node.ts`, synchronous results, so Node verification stays
 * synchronous), the Web entry binds Web Crypto (`crypto-web.ts`, promises). Results are `MaybePromise`
 * and `settle` continues either kind without adding a promise to the synchronous path.
 */
import type { HmacAlgorithm } from '../signing/hmac-scheme-core.js';
import type { SchemeOptions, SignatureScheme } from '../signing/scheme.js';
import type { HeaderPrefix } from '../signing/standard-webhooks-core.js';

export type MaybePromise<T> = T | Promise<T>;
export type Part = string | Uint8Array;

/** One key's MAC over the parts in order (strings as UTF-8). */
export type Mac = (...parts: readonly Part[]) => MaybePromise<Uint8Array>;

export interface PresetCrypto {
  /** A MAC function for one key, prepared once per scheme. */
  hmac(algorithm: HmacAlgorithm, key: Uint8Array): Mac;
  /** Ed25519 verification under a raw 32-byte public key (`invalid_key` when it is not one). */
  ed25519Verifier(
    publicKey: Uint8Array,
  ): (signature: Uint8Array, ...parts: readonly Part[]) => MaybePromise<boolean>;
  /** Ed25519 signing with a raw 32-byte seed (`invalid_key` when it is not one). */
  ed25519Signer(seed: Uint8Array): (...parts: readonly Part[]) => MaybePromise<Uint8Array>;
  /** Constant-time comparison (false for different lengths). */
  equal(a: Uint8Array, b: Uint8Array): boolean;
  /** The Standard Webhooks scheme of this runtime (Svix). */
  standardWebhooks(options: SchemeOptions & { readonly headerPrefix?: HeaderPrefix }): SignatureScheme;
  /**
   * A query string as node:querystring re-spells it (`stringify(parse(q))`): one of the URL spellings
   * Twilio's SDK tries. Only the Node crypto has it; the Twilio preset needs it.
   */
  readonly legacyQuery?: (query: string) => string;
}

/** One MAC per rotation secret (at least one). */
export type MacList = readonly [Mac, ...Mac[]];

export function macsFor(
  crypto: PresetCrypto,
  algorithm: HmacAlgorithm,
  keys: readonly [Uint8Array, ...Uint8Array[]],
): MacList {
  const [first, ...rest] = keys;
  return [crypto.hmac(algorithm, first), ...rest.map((key) => crypto.hmac(algorithm, key))];
}

function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}

/** `then(value)` now when `value` is ready, after it settles when it is a promise. */
export function settle<T, R>(value: MaybePromise<T>, then: (value: T) => R): MaybePromise<R> {
  return isPromise(value) ? value.then(then) : then(value);
}

/** Like `settle` for a list: synchronous when every item is. */
export function settleAll<T, R>(
  values: readonly MaybePromise<T>[],
  then: (values: T[]) => R,
): MaybePromise<R> {
  return values.some(isPromise) ? Promise.all(values).then(then) : then(values as T[]);
}

/** True when some key's MAC of `parts` equals some `given` digest (every rotation secret is tried). */
export function anyKeyMatches(
  crypto: PresetCrypto,
  macs: readonly Mac[],
  given: readonly Uint8Array[],
  ...parts: readonly Part[]
): MaybePromise<boolean> {
  return settleAll(
    macs.map((mac) => mac(...parts)),
    (digests) => {
      let matched = false;
      for (const expected of digests)
        for (const candidate of given) if (crypto.equal(expected, candidate)) matched = true;
      return matched;
    },
  );
}
