import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWebhookError, WebhookError } from '../errors.js';
import { generateEd25519KeyPair } from './ed25519.js';
import { encodeBase64 } from './encoding.js';
import {
  generateStandardSecret,
  signStandardWebhook,
  standardWebhookHeaders,
  standardWebhooks,
  verifyStandardWebhook,
} from './standard-webhooks.js';

// The published Standard Webhooks test vector.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const AT_VECTOR = () => VECTOR.timestamp * 1000;

function vectorHeaders(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'webhook-id': VECTOR.id,
    'webhook-timestamp': String(VECTOR.timestamp),
    'webhook-signature': VECTOR.signature,
    ...overrides,
  };
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookError) return error.code;
    throw error;
  }
  return 'ok';
}

describe('published vector', () => {
  it('signs to the published signature', () => {
    expect(signStandardWebhook(VECTOR)).toBe(VECTOR.signature);
  });

  it('verifies the published signature', () => {
    const result = verifyStandardWebhook({
      headers: vectorHeaders(),
      body: VECTOR.body,
      secret: VECTOR.secret,
      now: AT_VECTOR,
    });
    expect(result).toEqual({ id: VECTOR.id, timestamp: VECTOR.timestamp });
  });

  it('verifies through the scheme with Fetch Headers and with every raw body type', async () => {
    const scheme = standardWebhooks({ secret: VECTOR.secret, now: AT_VECTOR });
    const bytes = new TextEncoder().encode(VECTOR.body);
    const bodies = [VECTOR.body, Buffer.from(VECTOR.body), bytes, bytes.slice().buffer];
    for (const body of bodies) {
      expect(
        await scheme.verify({ headers: new Headers(vectorHeaders() as Record<string, string>), body }),
      ).toEqual({
        id: VECTOR.id,
        timestamp: VECTOR.timestamp,
      });
    }
  });

  it('accepts the same key as bare base64, unpadded base64 and raw bytes', () => {
    const base64 = VECTOR.secret.slice('whsec_'.length);
    const raw = Buffer.from(base64, 'base64');
    for (const secret of [base64, raw, new Uint8Array(raw)]) {
      expect(signStandardWebhook({ ...VECTOR, secret })).toBe(VECTOR.signature);
    }
    const unpadded = `whsec_${encodeBase64(new Uint8Array(25)).replace(/=+$/, '')}`;
    expect(signStandardWebhook({ ...VECTOR, secret: unpadded })).toBe(
      signStandardWebhook({ ...VECTOR, secret: new Uint8Array(25) }),
    );
  });

  it('returns all three headers, in either header family', () => {
    expect(standardWebhookHeaders(VECTOR)).toEqual(vectorHeaders());
    expect(standardWebhookHeaders({ ...VECTOR, headerPrefix: 'svix' })).toEqual({
      'svix-id': VECTOR.id,
      'svix-timestamp': String(VECTOR.timestamp),
      'svix-signature': VECTOR.signature,
    });
  });
});

describe('header handling', () => {
  const verify = (headers: unknown, body: unknown = VECTOR.body) =>
    codeOf(() =>
      verifyStandardWebhook({
        headers,
        body: body as string,
        secret: VECTOR.secret,
        now: AT_VECTOR,
      }),
    );

  it('accepts svix-* headers (Svix senders)', () => {
    expect(
      verify({
        'svix-id': VECTOR.id,
        'svix-timestamp': String(VECTOR.timestamp),
        'svix-signature': VECTOR.signature,
      }),
    ).toBe('ok');
  });

  it('finds headers case-insensitively in plain records', () => {
    expect(
      verify({
        'Webhook-Id': VECTOR.id,
        'WEBHOOK-TIMESTAMP': String(VECTOR.timestamp),
        'Webhook-Signature': VECTOR.signature,
      }),
    ).toBe('ok');
  });

  it('reports each missing header', () => {
    expect(verify({})).toBe('missing_header');
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const headers = vectorHeaders();
      delete headers[name];
      expect(verify(headers)).toBe('missing_header');
    }
    expect(verify(vectorHeaders({ 'webhook-id': '' }))).toBe('missing_header');
  });

  it('accepts several signatures, space separated, in any order', () => {
    const other = 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=';
    expect(verify(vectorHeaders({ 'webhook-signature': `${other} ${VECTOR.signature}` }))).toBe('ok');
    expect(verify(vectorHeaders({ 'webhook-signature': `v2,abc ${VECTOR.signature} v1a,xyz` }))).toBe('ok');
    // Node joins a repeated header with ", "; both halves are still recognised.
    expect(verify(vectorHeaders({ 'webhook-signature': [other, VECTOR.signature] }))).toBe('ok');
    expect(verify(vectorHeaders({ 'webhook-signature': other }))).toBe('invalid_signature');
  });

  it('rejects signature headers without any version,value entry as malformed', () => {
    expect(
      verify(vectorHeaders({ 'webhook-signature': 'g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' })),
    ).toBe('malformed_header');
    expect(verify(vectorHeaders({ 'webhook-signature': '   ' }))).toBe('malformed_header');
    expect(verify(vectorHeaders({ 'webhook-signature': 'v2,abc' }))).toBe('invalid_signature');
  });

  it('rejects non-canonical base64 spellings of the right bytes', () => {
    // Same 32 bytes for a lenient decoder: last char differs only in the unused low bits.
    const lenient = `${VECTOR.signature.slice(0, -2)}F=`;
    expect(Buffer.from(lenient.slice(3), 'base64')).toEqual(Buffer.from(VECTOR.signature.slice(3), 'base64'));
    expect(verify(vectorHeaders({ 'webhook-signature': lenient }))).toBe('invalid_signature');
    expect(verify(vectorHeaders({ 'webhook-signature': VECTOR.signature.slice(0, -1) }))).toBe(
      'invalid_signature',
    );
  });

  it('treats non-string header values and non-object headers as malformed', () => {
    expect(verify(vectorHeaders({ 'webhook-id': 42 }))).toBe('malformed_header');
    expect(verify(vectorHeaders({ 'webhook-signature': [1, 2] }))).toBe('malformed_header');
    expect(verify(null)).toBe('malformed_header');
    expect(verify('webhook-id: x')).toBe('malformed_header');
    expect(verify({ get: () => 5 })).toBe('malformed_header');
  });

  it('wraps a throwing header getter in a WebhookError', () => {
    const headers = {
      get() {
        throw new RangeError('boom');
      },
    };
    expect(verify(headers)).toBe('invalid_signature');
  });

  it('refuses parsed bodies', () => {
    expect(verify(vectorHeaders(), JSON.parse(VECTOR.body))).toBe('parsed_body');
    expect(verify(vectorHeaders(), null)).toBe('parsed_body');
  });
});

describe('replay window', () => {
  const at = (seconds: number, options: { tolerance?: number; nowMs?: number } = {}) =>
    codeOf(() =>
      verifyStandardWebhook({
        headers: standardWebhookHeaders({ ...VECTOR, timestamp: seconds }),
        body: VECTOR.body,
        secret: VECTOR.secret,
        now: () => options.nowMs ?? AT_VECTOR(),
        ...(options.tolerance === undefined ? {} : { tolerance: options.tolerance }),
      }),
    );

  it('accepts exactly 300 s in both directions and rejects 301 s', () => {
    expect(at(VECTOR.timestamp)).toBe('ok');
    expect(at(VECTOR.timestamp - 300)).toBe('ok');
    expect(at(VECTOR.timestamp - 301)).toBe('timestamp_too_old');
    expect(at(VECTOR.timestamp + 300)).toBe('ok');
    expect(at(VECTOR.timestamp + 301)).toBe('timestamp_too_new');
  });

  it('compares whole seconds of the injected clock', () => {
    const nowMs = (VECTOR.timestamp + 300) * 1000 + 999;
    expect(at(VECTOR.timestamp, { nowMs })).toBe('ok');
    expect(at(VECTOR.timestamp, { nowMs: nowMs + 1 })).toBe('timestamp_too_old');
  });

  it('honours a custom tolerance, including 0', () => {
    expect(at(VECTOR.timestamp - 10, { tolerance: 10 })).toBe('ok');
    expect(at(VECTOR.timestamp - 11, { tolerance: 10 })).toBe('timestamp_too_old');
    expect(at(VECTOR.timestamp + 11, { tolerance: 10 })).toBe('timestamp_too_new');
    expect(at(VECTOR.timestamp, { tolerance: 0 })).toBe('ok');
    expect(at(VECTOR.timestamp + 1, { tolerance: 0 })).toBe('timestamp_too_new');
  });

  it('parses the timestamp strictly', () => {
    for (const text of [
      '1614265330abc',
      '1e9',
      ' 1614265330',
      '1614265330 ',
      '-1',
      '+1614265330',
      '1614265330.0',
      '0x60',
      '01614265330',
      '１６',
      '16142653301614265330',
    ]) {
      const headers = vectorHeaders({ 'webhook-timestamp': text });
      expect(
        codeOf(() =>
          verifyStandardWebhook({ headers, body: VECTOR.body, secret: VECTOR.secret, now: AT_VECTOR }),
        ),
        text,
      ).toBe('malformed_header');
    }
  });

  it('rejects invalid tolerances at construction', () => {
    expect(codeOf(() => standardWebhooks({ secret: VECTOR.secret, tolerance: -1 }))).toBe('invalid_config');
    expect(codeOf(() => standardWebhooks({ secret: VECTOR.secret, tolerance: Number.NaN }))).toBe(
      'invalid_config',
    );
  });
});

describe('secret rotation', () => {
  const oldSecret = generateStandardSecret();
  const newSecret = generateStandardSecret(24);
  const third = generateStandardSecret(64);
  const now = () => 1_700_000_000_000;
  const input = { id: 'msg_rotation', timestamp: 1_700_000_000, body: '{"rotate":true}' };
  const verifyWith = (signature: string, secret: string | string[]) =>
    codeOf(() =>
      verifyStandardWebhook({
        headers: {
          'webhook-id': input.id,
          'webhook-timestamp': String(input.timestamp),
          'webhook-signature': signature,
        },
        body: input.body,
        secret,
        now,
      }),
    );

  it('signs with every secret and verifies with either', () => {
    const signature = signStandardWebhook({ ...input, secret: [oldSecret, newSecret] });
    expect(signature.split(' ')).toHaveLength(2);
    expect(verifyWith(signature, oldSecret)).toBe('ok');
    expect(verifyWith(signature, newSecret)).toBe('ok');
    expect(verifyWith(signature, third)).toBe('invalid_signature');
  });

  it('verifies with [old, new] whichever one signed', () => {
    expect(verifyWith(signStandardWebhook({ ...input, secret: oldSecret }), [oldSecret, newSecret])).toBe(
      'ok',
    );
    expect(verifyWith(signStandardWebhook({ ...input, secret: newSecret }), [oldSecret, newSecret])).toBe(
      'ok',
    );
    expect(verifyWith(signStandardWebhook({ ...input, secret: third }), [oldSecret, newSecret])).toBe(
      'invalid_signature',
    );
  });

  it('rejects empty secret lists and undecodable secrets', () => {
    expect(codeOf(() => standardWebhooks({ secret: [] }))).toBe('invalid_secret');
    expect(codeOf(() => standardWebhooks({ secret: 'whsec_' }))).toBe('invalid_secret');
    expect(codeOf(() => standardWebhooks({ secret: 'whsec_not base64!' }))).toBe('invalid_secret');
    expect(codeOf(() => standardWebhooks({ secret: new Uint8Array(0) }))).toBe('invalid_secret');
    expect(verifyWith(VECTOR.signature, 'whsec_%%%')).toBe('invalid_secret');
    expect(codeOf(() => generateStandardSecret(8))).toBe('invalid_argument');
  });
});

describe('asymmetric v1a (Ed25519)', () => {
  const pair = generateEd25519KeyPair();
  const input = { id: 'msg_ed25519', timestamp: 1_700_000_000, body: Buffer.from([0x7b, 0xff, 0x00, 0x7d]) };
  const now = () => input.timestamp * 1000;
  const headersFor = (signature: string) => ({
    'webhook-id': input.id,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': signature,
  });

  it('generates whsk_/whpk_ keys', () => {
    expect(pair.secretKey).toMatch(/^whsk_[A-Za-z0-9+/]{86}==$/);
    expect(pair.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
  });

  it('round-trips with the public key and with the secret key', () => {
    const signature = signStandardWebhook({ ...input, secret: pair.secretKey });
    expect(signature).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    for (const secret of [pair.publicKey, pair.secretKey]) {
      expect(
        verifyStandardWebhook({ headers: headersFor(signature), body: input.body, secret, now }),
      ).toEqual({
        id: input.id,
        timestamp: input.timestamp,
      });
    }
  });

  it('accepts the 32-byte seed form of whsk_', () => {
    const seedOnly = `whsk_${encodeBase64(Buffer.from(pair.secretKey.slice(5), 'base64').subarray(0, 32))}`;
    expect(signStandardWebhook({ ...input, secret: seedOnly })).toBe(
      signStandardWebhook({ ...input, secret: pair.secretKey }),
    );
  });

  it('rejects tampering and other keys', () => {
    const signature = signStandardWebhook({ ...input, secret: pair.secretKey });
    const other = generateEd25519KeyPair();
    const tampered = Buffer.from(input.body);
    tampered[1] = 0xfe;
    const verify = (body: Uint8Array, secret: string, headers = headersFor(signature)) =>
      codeOf(() => verifyStandardWebhook({ headers, body, secret, now }));
    expect(verify(tampered, pair.publicKey)).toBe('invalid_signature');
    expect(verify(input.body, other.publicKey)).toBe('invalid_signature');
    expect(verify(input.body, pair.publicKey, { ...headersFor(signature), 'webhook-id': 'msg_other' })).toBe(
      'invalid_signature',
    );
  });

  it('mixes v1 and v1a in one header', () => {
    const hmacSecret = generateStandardSecret();
    const signature = signStandardWebhook({ ...input, secret: [hmacSecret, pair.secretKey] });
    expect(signature).toMatch(/^v1,\S+ v1a,\S+$/);
    for (const secret of [hmacSecret, pair.publicKey]) {
      expect(
        codeOf(() =>
          verifyStandardWebhook({ headers: headersFor(signature), body: input.body, secret, now }),
        ),
      ).toBe('ok');
    }
  });

  it('refuses to sign with a public key only, and rejects bad keys', () => {
    expect(codeOf(() => signStandardWebhook({ ...input, secret: pair.publicKey }))).toBe('invalid_key');
    expect(codeOf(() => standardWebhooks({ secret: 'whpk_AAAA' }))).toBe('invalid_key');
    const mismatched = Buffer.concat([
      Buffer.from(pair.secretKey.slice(5), 'base64').subarray(0, 32),
      Buffer.from(generateEd25519KeyPair().publicKey.slice(5), 'base64'),
    ]);
    expect(codeOf(() => standardWebhooks({ secret: `whsk_${mismatched.toString('base64')}` }))).toBe(
      'invalid_key',
    );
  });
});

describe('sign input checks', () => {
  it('rejects ids that cannot travel in a header and non-integer timestamps', () => {
    for (const id of ['', ' msg', 'msg\n1', 'msg\r', 'a\u0000b']) {
      expect(codeOf(() => signStandardWebhook({ ...VECTOR, id }))).toBe('invalid_argument');
    }
    for (const timestamp of [-1, 1.5, Number.NaN, 2 ** 60]) {
      expect(codeOf(() => signStandardWebhook({ ...VECTOR, timestamp }))).toBe('invalid_argument');
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Properties

const headerSafeId = fc.stringMatching(/^[!-~]{1,40}$/);
const secretArb = fc.uint8Array({ minLength: 1, maxLength: 64 });
const bodyArb = fc.oneof(fc.uint8Array({ maxLength: 512 }), fc.string({ maxLength: 200, unit: 'grapheme' }));
const timestampArb = fc.integer({ min: 1_000_000_000, max: 4_000_000_000 });

describe('properties', () => {
  it('sign → verify round-trips for arbitrary bodies, ids and secrets', () => {
    fc.assert(
      fc.property(headerSafeId, timestampArb, bodyArb, secretArb, (id, timestamp, body, secret) => {
        const headers = standardWebhookHeaders({ id, timestamp, body, secret });
        const result = verifyStandardWebhook({ headers, body, secret, now: () => timestamp * 1000 });
        expect(result).toEqual({ id, timestamp });
      }),
      { numRuns: 300 },
    );
  });

  it('any single changed byte of body, id, timestamp or signature fails', () => {
    const secret = generateStandardSecret();
    const scheme = standardWebhooks({ secret, tolerance: 10 ** 12, now: () => 2_000_000_000_000 });
    fc.assert(
      fc.property(
        headerSafeId,
        timestampArb,
        fc.uint8Array({ minLength: 1, maxLength: 256 }),
        fc.constantFrom('body', 'id', 'timestamp', 'signature'),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (id, timestamp, body, part, position, delta) => {
          const headers = scheme.sign({ id, timestamp, body }) as Record<string, string>;
          let mutatedBody = body;
          const mutated = { ...headers };
          const flipChar = (text: string) => {
            const i = position % text.length;
            const code = text.charCodeAt(i);
            // Stay in printable ASCII so the header is still a header; only the value changes.
            const next = 0x21 + ((code - 0x21 + (delta % 93) + 1) % 94);
            return (
              text.slice(0, i) + String.fromCharCode(next === code ? code + 1 : next) + text.slice(i + 1)
            );
          };
          if (part === 'body') {
            mutatedBody = Uint8Array.from(body);
            const i = position % body.length;
            mutatedBody[i] = ((body[i] ?? 0) + delta) & 0xff;
          } else if (part === 'id') {
            mutated['webhook-id'] = flipChar(id);
          } else if (part === 'timestamp') {
            mutated['webhook-timestamp'] = flipChar(String(timestamp));
          } else {
            mutated['webhook-signature'] = flipChar(headers['webhook-signature'] ?? '');
          }
          let thrown: unknown;
          try {
            scheme.verify({ headers: mutated, body: mutatedBody });
          } catch (error) {
            thrown = error;
          }
          expect(isWebhookError(thrown)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('arbitrary header garbage yields WebhookError only', () => {
    const scheme = standardWebhooks({ secret: VECTOR.secret, now: AT_VECTOR });
    const name = fc.constantFrom(
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
      'svix-id',
      'svix-timestamp',
      'svix-signature',
      'Webhook-Signature',
    );
    const value = fc.oneof(
      fc.string(),
      fc.anything(),
      fc.array(fc.string()),
      fc.constantFrom(
        String(VECTOR.timestamp),
        VECTOR.id,
        VECTOR.signature,
        'v1,',
        'v1a,',
        ',',
        ' v1,x  v1,y ',
      ),
    );
    const headers = fc.oneof(
      fc.dictionary(fc.oneof(name, fc.string()), value),
      fc.anything(),
      fc.record({ get: fc.func(fc.anything()) }),
    );
    const body = fc.oneof(fc.string(), fc.uint8Array(), fc.anything());
    fc.assert(
      fc.property(headers, body, (h, b) => {
        let thrown: unknown;
        try {
          scheme.verify({ headers: h as Record<string, string>, body: b as string });
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(WebhookError);
      }),
      { numRuns: 1000 },
    );
  });

  it('handles huge inputs with WebhookError only', () => {
    const scheme = standardWebhooks({ secret: VECTOR.secret, now: AT_VECTOR });
    const huge = 'v1,'.repeat(400_000);
    const cases: Record<string, unknown>[] = [
      vectorHeaders({ 'webhook-signature': huge }),
      vectorHeaders({ 'webhook-signature': `${'v1,AAAA '.repeat(200_000)}${VECTOR.signature}` }),
      vectorHeaders({ 'webhook-id': 'x'.repeat(2_000_000) }),
      vectorHeaders({ 'webhook-timestamp': '9'.repeat(1_000_000) }),
      vectorHeaders({ 'webhook-signature': Array.from({ length: 100_000 }, () => 'v1a,x') }),
    ];
    for (const headers of cases) {
      expect(() => scheme.verify({ headers: headers as Record<string, string>, body: VECTOR.body })).toThrow(
        WebhookError,
      );
    }
    expect(() =>
      scheme.verify({ headers: vectorHeaders() as Record<string, string>, body: 'x'.repeat(5_000_000) }),
    ).toThrow(WebhookError);
  });
});
