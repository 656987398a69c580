/**
 * Message ids: `msg_` + 26 Crockford base32 characters (48-bit millisecond time, then 80 random bits),
 * the ULID layout. Ids sort lexicographically by creation time; within one millisecond (or if the clock
 * steps back) the random part is incremented, so ids from one generator are strictly increasing.
 * No `node:*` imports.
 *
 * Exports: `createIdGenerator({ prefix, now, random })`, `newMessageId()`, `idTime(id)`.
 */
import { WebhookError } from './errors.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_CHARS = 10;
const RANDOM_BYTES = 10;
const MAX_TIME = 2 ** 48 - 1;

export interface IdGeneratorOptions {
  /** Default `msg_`. */
  readonly prefix?: string;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** Fills `n` random bytes. Default `crypto.getRandomValues`. */
  readonly random?: (n: number) => Uint8Array;
}

function defaultRandom(n: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(n));
}

function encodeTime(ms: number): string {
  let out = '';
  let value = ms;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = CROCKFORD.charAt(value % 32) + out;
    value = Math.floor(value / 32);
  }
  return out;
}

/** 80 bits → 16 base32 characters (5 bits each, big-endian). */
function encodeRandom(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += CROCKFORD.charAt((buffer >> (bits - 5)) & 31);
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

/** Adds one to a big-endian byte string; `false` when it overflowed (all bits were set). */
function increment(bytes: Uint8Array): boolean {
  for (let i = bytes.length - 1; i >= 0; i--) {
    const next = ((bytes[i] ?? 0) + 1) & 0xff;
    bytes[i] = next;
    if (next !== 0) return true;
  }
  return false;
}

export function createIdGenerator(options: IdGeneratorOptions = {}): () => string {
  const prefix = options.prefix ?? 'msg_';
  const now = options.now ?? Date.now;
  const random = options.random ?? defaultRandom;
  let lastTime = -1;
  let lastRandom = new Uint8Array(RANDOM_BYTES);
  return () => {
    const current = Math.floor(now());
    if (!Number.isFinite(current) || current < 0 || current > MAX_TIME) {
      throw new WebhookError('invalid_config', 'Id clock must return milliseconds between 0 and 2^48');
    }
    if (current > lastTime) {
      const bytes = random(RANDOM_BYTES);
      if (!(bytes instanceof Uint8Array) || bytes.length !== RANDOM_BYTES) {
        throw new WebhookError('invalid_config', `Id random source must return ${RANDOM_BYTES} bytes`);
      }
      lastTime = current;
      lastRandom = Uint8Array.from(bytes);
    } else if (!increment(lastRandom)) {
      // 2^80 ids in one millisecond cannot happen with a real RNG; borrow the next millisecond.
      lastTime += 1;
    }
    return prefix + encodeTime(lastTime) + encodeRandom(lastRandom);
  };
}

const defaultGenerator = createIdGenerator();

/** A new `msg_…` id from the process-wide generator. */
export function newMessageId(): string {
  return defaultGenerator();
}

/** The creation time (ms) encoded in an id of this layout, or `undefined` for other ids. */
export function idTime(id: string, prefix = 'msg_'): number | undefined {
  if (!id.startsWith(prefix)) return undefined;
  const body = id.slice(prefix.length);
  if (body.length !== TIME_CHARS + 16) return undefined;
  let value = 0;
  for (const char of body.slice(0, TIME_CHARS)) {
    const digit = CROCKFORD.indexOf(char);
    if (digit < 0) return undefined;
    value = value * 32 + digit;
  }
  for (const char of body.slice(TIME_CHARS)) if (CROCKFORD.indexOf(char) < 0) return undefined;
  return value <= MAX_TIME ? value : undefined;
}
