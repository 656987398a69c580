/**
 * `secretKeys[].key` encrypts every endpoint secret at rest, so a key that is not what the operator
 * meant must never be used: `Buffer.from(x, 'base64')` silently drops junk characters and whitespace
 * (a typo or a pasted newline yields some other key, or a shorter one), and an all-zero or
 * repeated-byte key (a placeholder, `Buffer.alloc(32)`) protects nothing. Each is `invalid_config`
 * naming the key id and what was expected, never the key itself; a canonical base64 / base64url
 * string or 32 raw bytes of a real key works, end to end through an outbox.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SecretKey } from '../../runtime/deliver/secret-box.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { isWebhookError } from '../../runtime/errors.js';

/** A random key whose base64 uses `+` and `/` (so it cannot also be read as base64url). */
const good = (() => {
  for (;;) {
    const bytes = randomBytes(32);
    if (/\+.*\/|\/.*\+/.test(bytes.toString('base64'))) return bytes;
  }
})();
const b64 = good.toString('base64');
const b64url = good.toString('base64url');

/** The error `secretKeys: [{ id, key }]` gets, or undefined when the outbox opens. */
function refusal(
  key: unknown,
  id = 'key-2026',
): { code: string; message: string; details: string } | undefined {
  try {
    const outbox = sqliteOutbox(':memory:', { secretKeys: [{ id, key } as SecretKey] });
    void outbox.close();
    return undefined;
  } catch (error) {
    if (!isWebhookError(error)) throw error;
    return { code: error.code, message: error.message, details: JSON.stringify(error.details) };
  }
}

const BAD: Array<[string, unknown]> = [
  ['junk in the middle (base64)', `${b64.slice(0, 20)}!*${b64.slice(20)}`],
  ['junk in the middle (base64url)', `${b64url.slice(0, 20)}.${b64url.slice(20)}`],
  ['trailing junk', `${b64}#`],
  ['trailing text after padding', `${b64}AA`],
  ['a trailing newline', `${b64}\n`],
  ['a leading space', ` ${b64}`],
  ['a space in the middle', `${b64.slice(0, 10)} ${b64.slice(10)}`],
  ['mixed alphabets', `${b64url.slice(0, 42)}+`.replace(/^./, '_')],
  ['base64 without its padding', b64.replace(/=$/, '')],
  ['31 bytes (base64)', randomBytes(31).toString('base64')],
  ['33 bytes (base64)', randomBytes(33).toString('base64')],
  ['31 bytes (raw)', randomBytes(31)],
  ['33 bytes (raw)', randomBytes(33)],
  ['hex', randomBytes(32).toString('hex')],
  ['all zero (raw)', Buffer.alloc(32)],
  ['all zero (base64)', Buffer.alloc(32).toString('base64')],
  ['0x41 repeated (raw)', Buffer.alloc(32, 0x41)],
  ['0x41 repeated (base64url)', Buffer.alloc(32, 0x41).toString('base64url')],
  ['0x07 repeated (base64)', Buffer.alloc(32, 7).toString('base64')],
  ["'a' × 32 as text", 'a'.repeat(32)],
  ["'a' × 44 as text", 'a'.repeat(44)],
  ['an empty string', ''],
  ['a number', 42],
  ['an array of numbers', Array.from(good)],
  ['undefined', undefined],
];

describe('secretKeys[].key is decoded strictly', () => {
  it.each(BAD)('refuses %s with invalid_config, naming the key id, not the key', (_name, key) => {
    const error = refusal(key);
    expect(error?.code).toBe('invalid_config');
    expect(error?.message).toContain('"key-2026"');
    expect(error?.message).toMatch(/expected|must be/);
    if (typeof key === 'string' && key.trim().length >= 8) {
      for (const text of [error?.message ?? '', error?.details ?? '']) {
        expect(text).not.toContain(key.trim());
        expect(text).not.toContain(key.trim().slice(0, 16));
      }
    }
  });

  it.each([
    ['base64', b64],
    ['base64url', b64url],
    ['raw bytes', good],
    ['a Uint8Array', new Uint8Array(good)],
  ])('accepts a real key as %s', (_name, key) => {
    expect(refusal(key)).toBeUndefined();
  });

  it('a good key encrypts and decrypts through an outbox (round trip)', async () => {
    const outbox = sqliteOutbox(':memory:', { secretKeys: [{ id: 'k1', key: b64 }] });
    try {
      const endpoint = await outbox.createEndpoint(
        {
          url: 'https://example.com/hooks',
          events: ['*'],
          secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        },
        Date.now(),
      );
      const read = await outbox.getEndpoint(endpoint.id);
      expect(read?.secrets.map((s) => s.secret)).toEqual(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
    } finally {
      await outbox.close();
    }
  });

  it('refuses any string that is not the canonical encoding of 32 non-degenerate bytes', () => {
    const canonical = (text: string): boolean => {
      for (const encoding of ['base64', 'base64url'] as const) {
        const bytes = Buffer.from(text, encoding);
        if (bytes.length === 32 && bytes.toString(encoding) === text && new Set(bytes).size > 1) return true;
      }
      return false;
    };
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_= \n.!';
    const nearKey = fc.oneof(
      // Strings of about the right length over base64 characters and junk.
      fc.string({ unit: fc.constantFrom(...alphabet), minLength: 40, maxLength: 46 }),
      // A real key's encoding with one character changed, inserted or removed.
      fc
        .tuple(
          fc.uint8Array({ minLength: 32, maxLength: 32 }),
          fc.constantFrom('base64', 'base64url'),
          fc.nat(),
          fc.constantFrom(...alphabet),
          fc.constantFrom('set', 'insert', 'delete'),
        )
        .map(([bytes, encoding, at, ch, how]) => {
          const text = Buffer.from(bytes).toString(encoding as BufferEncoding);
          const i = at % (text.length + 1);
          if (how === 'insert') return text.slice(0, i) + ch + text.slice(i);
          if (how === 'delete') return text.slice(0, i) + text.slice(i + 1);
          return text.slice(0, i) + ch + text.slice(i + 1);
        }),
      fc.string(),
    );
    fc.assert(
      fc.property(nearKey, (text) => {
        const error = refusal(text);
        if (canonical(text)) expect(error).toBeUndefined();
        else expect(error?.code).toBe('invalid_config');
      }),
      { numRuns: 1000 },
    );
  });
});
