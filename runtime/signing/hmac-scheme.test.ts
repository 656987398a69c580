import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SignatureConfig } from '../contract.js';
import { WebhookError } from '../errors.js';
import { hmacScheme } from './hmac-scheme.js';
import type { SignatureScheme } from './scheme.js';

type HmacConfig = Extract<SignatureConfig, { kind: 'hmac' }>;

const PETSTORE: HmacConfig = {
  kind: 'hmac',
  header: 'X-Webhook-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  prefix: 'sha256=',
};

async function codeOf(run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (error instanceof WebhookError) return error.code;
    throw error;
  }
  return 'ok';
}

const NOW = 1_700_000_000;
const now = () => NOW * 1000;

describe('petstore-style X-Webhook-Signature: sha256=<hex>', () => {
  const secret = 'petstore-secret';
  const scheme = hmacScheme(PETSTORE, { secret });
  const body = '{"event":"pet.adopted","data":{"petId":7}}';
  const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

  it('signs the body with the UTF-8 secret, keeping the configured header name', async () => {
    expect(await scheme.sign({ id: 'evt_1', timestamp: NOW, body })).toEqual({
      'X-Webhook-Signature': expected,
    });
  });

  it('verifies independent signatures in their one canonical spelling (lower-case hex, exact prefix)', async () => {
    for (const value of [expected, ` ${expected} `]) {
      expect(await scheme.verify({ headers: { 'x-webhook-signature': value }, body })).toEqual({});
    }
    const hex = expected.slice('sha256='.length);
    for (const value of [expected.toUpperCase(), `sha256=${hex.toUpperCase()}`, `SHA256=${hex}`]) {
      expect(await codeOf(() => scheme.verify({ headers: { 'x-webhook-signature': value }, body }))).toBe(
        'malformed_header',
      );
    }
    expect(
      await scheme.verify({
        headers: new Headers({ 'X-Webhook-Signature': expected }),
        body: Buffer.from(body),
      }),
    ).toEqual({});
  });

  it('rejects other bodies, missing and malformed headers', async () => {
    const verify = (headers: Record<string, unknown>, b: unknown = body) =>
      codeOf(() => scheme.verify({ headers: headers as Record<string, string>, body: b as string }));
    expect(await verify({ 'x-webhook-signature': expected }, `${body} `)).toBe('invalid_signature');
    expect(await verify({})).toBe('missing_header');
    expect(await verify({ 'x-webhook-signature': expected.slice(7) })).toBe('malformed_header');
    expect(await verify({ 'x-webhook-signature': 'sha256=zz' })).toBe('malformed_header');
    expect(await verify({ 'x-webhook-signature': `${expected}0` })).toBe('malformed_header');
    expect(await verify({ 'x-webhook-signature': 7 })).toBe('malformed_header');
    expect(await verify({ 'x-webhook-signature': expected }, { event: 'pet.adopted' })).toBe('parsed_body');
  });

  it('signs with every secret during a rotation and verifies with any', async () => {
    const rotating = hmacScheme(PETSTORE, { secret: ['old', 'new'] });
    const headers = await rotating.sign({ id: 'evt_1', timestamp: NOW, body });
    expect(headers['X-Webhook-Signature']?.split(', ')).toHaveLength(2);
    for (const secretValue of ['old', 'new']) {
      expect(await hmacScheme(PETSTORE, { secret: secretValue }).verify({ headers, body })).toEqual({});
    }
    expect(await codeOf(() => hmacScheme(PETSTORE, { secret: 'other' }).verify({ headers, body }))).toBe(
      'invalid_signature',
    );
    const single = await hmacScheme(PETSTORE, { secret: 'new' }).sign({ id: 'evt_1', timestamp: NOW, body });
    expect(await rotating.verify({ headers: single, body })).toEqual({});
  });

  it('takes raw key bytes as they are', async () => {
    const key = new Uint8Array([0, 255, 1, 254]);
    const headers = await hmacScheme(PETSTORE, { secret: key }).sign({ id: 'x', timestamp: NOW, body });
    expect(headers['X-Webhook-Signature']).toBe(
      `sha256=${createHmac('sha256', Buffer.from(key)).update(body).digest('hex')}`,
    );
  });
});

describe('algorithms, encodings, timestamps and ids', () => {
  it('supports sha1/sha512 and base64', async () => {
    for (const algorithm of ['sha1', 'sha256', 'sha512'] as const) {
      for (const encoding of ['hex', 'base64'] as const) {
        const scheme = hmacScheme({ kind: 'hmac', header: 'X-Sig', algorithm, encoding }, { secret: 'k' });
        const headers = await scheme.sign({ id: 'i', timestamp: NOW, body: 'payload' });
        expect(headers['X-Sig']).toBe(createHmac(algorithm, 'k').update('payload').digest(encoding));
        expect(await scheme.verify({ headers, body: 'payload' })).toEqual({});
      }
    }
  });

  it('signs {timestamp}.{body} by default when a timestamp header is set, and checks the window', async () => {
    const config: HmacConfig = { ...PETSTORE, timestampHeader: 'X-Webhook-Timestamp' };
    const scheme = hmacScheme(config, { secret: 's', now });
    const headers = await scheme.sign({ id: 'evt', timestamp: NOW, body: 'b' });
    expect(headers).toEqual({
      'X-Webhook-Signature': `sha256=${createHmac('sha256', 's').update(`${NOW}.b`).digest('hex')}`,
      'X-Webhook-Timestamp': String(NOW),
    });
    expect(await scheme.verify({ headers, body: 'b' })).toEqual({ timestamp: NOW });
    const at = (seconds: number) => hmacScheme(config, { secret: 's', now: () => seconds * 1000 });
    expect(await codeOf(() => at(NOW + 300).verify({ headers, body: 'b' }))).toBe('ok');
    expect(await codeOf(() => at(NOW + 301).verify({ headers, body: 'b' }))).toBe('timestamp_too_old');
    expect(await codeOf(() => at(NOW - 301).verify({ headers, body: 'b' }))).toBe('timestamp_too_new');
    const { 'X-Webhook-Timestamp': _, ...withoutTimestamp } = headers;
    expect(await codeOf(() => scheme.verify({ headers: withoutTimestamp, body: 'b' }))).toBe(
      'missing_header',
    );
    expect(
      await codeOf(() =>
        scheme.verify({ headers: { ...headers, 'X-Webhook-Timestamp': `${NOW}x` }, body: 'b' }),
      ),
    ).toBe('malformed_header');
    // The timestamp is signed: moving it (within the window) breaks the signature.
    expect(
      await codeOf(() =>
        scheme.verify({ headers: { ...headers, 'X-Webhook-Timestamp': String(NOW + 1) }, body: 'b' }),
      ),
    ).toBe('invalid_signature');
  });

  it('renders {id} from the id header and returns the id', async () => {
    const config: HmacConfig = {
      kind: 'hmac',
      header: 'X-Sig',
      algorithm: 'sha256',
      encoding: 'base64',
      idHeader: 'X-Delivery',
      timestampHeader: 'X-Ts',
      signedContent: '{id}.{timestamp}.{body}',
    };
    const scheme = hmacScheme(config, { secret: 's', now });
    const headers = await scheme.sign({ id: 'evt_9', timestamp: NOW, body: 'b' });
    expect(headers['X-Sig']).toBe(createHmac('sha256', 's').update(`evt_9.${NOW}.b`).digest('base64'));
    expect(await scheme.verify({ headers, body: 'b' })).toEqual({ id: 'evt_9', timestamp: NOW });
    expect(
      await codeOf(() => scheme.verify({ headers: { ...headers, 'X-Delivery': 'evt_8' }, body: 'b' })),
    ).toBe('invalid_signature');
    expect(
      await codeOf(() =>
        scheme.verify({ headers: { 'X-Sig': headers['X-Sig'], 'X-Ts': String(NOW) }, body: 'b' }),
      ),
    ).toBe('missing_header');
  });

  it('signs a declared id header by default ({id}.{body}) and reports it', async () => {
    const scheme = hmacScheme({ ...PETSTORE, idHeader: 'X-Delivery' }, { secret: 's' });
    const headers = await scheme.sign({ id: 'evt_1', timestamp: NOW, body: 'b' });
    expect(headers).toEqual({
      'X-Webhook-Signature': `sha256=${createHmac('sha256', 's').update('evt_1.b').digest('hex')}`,
      'X-Delivery': 'evt_1',
    });
    expect(await scheme.verify({ headers, body: 'b' })).toEqual({ id: 'evt_1' });
    expect(
      await codeOf(() => scheme.verify({ headers: { ...headers, 'X-Delivery': 'evt_2' }, body: 'b' })),
    ).toBe('invalid_signature');
  });

  it('never reports an id header that signedContent leaves out', async () => {
    const scheme = hmacScheme(
      { ...PETSTORE, idHeader: 'X-Delivery', signedContent: '{body}' },
      { secret: 's' },
    );
    const headers = await scheme.sign({ id: 'evt_1', timestamp: NOW, body: 'b' });
    expect(headers['X-Delivery']).toBe('evt_1');
    expect(await scheme.verify({ headers, body: 'b' })).toEqual({});
  });
});

describe('the Petstore contract config (schemas/petstore.openapi.yaml)', () => {
  const config: HmacConfig = {
    ...PETSTORE,
    timestampHeader: 'X-Webhook-Timestamp',
    idHeader: 'X-Webhook-Id',
    signedContent: '{id}.{timestamp}.{body}',
  };

  it('is what the default signs once an id header is declared', async () => {
    const { signedContent: _, ...defaulted } = config;
    const body = '{"id":"msg_1"}';
    const input = { id: 'msg_1', timestamp: NOW, body };
    expect(await hmacScheme(defaulted, { secret: 'p', now }).sign(input)).toEqual(
      await hmacScheme(config, { secret: 'p', now }).sign(input),
    );
  });

  it('signs {id}.{timestamp}.{body}, sends the id and timestamp headers, and verifies them', async () => {
    const scheme = hmacScheme(config, { secret: 'petstore', now });
    const body =
      '{"id":"msg_1","event":"pet.adopted","timestamp":"2024-06-12T14:03:00Z","data":{"petId":4211}}';
    const headers = await scheme.sign({ id: 'msg_1', timestamp: NOW, body });
    expect(headers).toEqual({
      'X-Webhook-Signature': `sha256=${createHmac('sha256', 'petstore').update(`msg_1.${NOW}.${body}`).digest('hex')}`,
      'X-Webhook-Timestamp': String(NOW),
      'X-Webhook-Id': 'msg_1',
    });
    expect(await scheme.verify({ headers, body })).toEqual({ id: 'msg_1', timestamp: NOW });
  });
});

describe('config validation', () => {
  const bad: Array<[string, Partial<HmacConfig>]> = [
    ['no {body}', { signedContent: '{timestamp}' }],
    ['{body} twice', { signedContent: '{body}{body}' }],
    ['{timestamp} without header', { signedContent: '{timestamp}.{body}' }],
    ['{id} without header', { signedContent: '{id}.{body}' }],
    ['unknown placeholder', { signedContent: '{nonce}.{body}' }],
    ['bad header', { header: 'X Sig' }],
    ['bad algorithm', { algorithm: 'md5' as 'sha1' }],
    ['bad encoding', { encoding: 'base32' as 'hex' }],
  ];
  it.each(bad)('rejects %s', async (_, change) => {
    expect(await codeOf(() => hmacScheme({ ...PETSTORE, ...change } as HmacConfig, { secret: 's' }))).toBe(
      'invalid_config',
    );
  });

  it('rejects empty secrets', async () => {
    expect(await codeOf(() => hmacScheme(PETSTORE, { secret: '' }))).toBe('invalid_secret');
    expect(await codeOf(() => hmacScheme(PETSTORE, { secret: [] }))).toBe('invalid_secret');
  });
});

describe('properties', () => {
  const configs = fc.record({
    algorithm: fc.constantFrom('sha1', 'sha256', 'sha512' as const),
    encoding: fc.constantFrom('hex', 'base64' as const),
    prefix: fc.constantFrom(undefined, 'sha256=', 'v1='),
    timestamped: fc.boolean(),
  });
  const build = (c: {
    algorithm: HmacConfig['algorithm'];
    encoding: HmacConfig['encoding'];
    prefix: string | undefined;
    timestamped: boolean;
  }): SignatureScheme =>
    hmacScheme(
      {
        kind: 'hmac',
        header: 'X-Sig',
        algorithm: c.algorithm,
        encoding: c.encoding,
        ...(c.prefix === undefined ? {} : { prefix: c.prefix }),
        ...(c.timestamped ? { timestampHeader: 'X-Ts' } : {}),
      },
      { secret: 'property-secret', now },
    );

  it('round-trips and rejects any changed body byte', async () => {
    await fc.assert(
      fc.asyncProperty(
        configs,
        fc.uint8Array({ minLength: 1, maxLength: 300 }),
        fc.nat(),
        async (c, body, at) => {
          const scheme = build(c);
          const headers = await scheme.sign({ id: 'evt', timestamp: NOW, body });
          expect(await scheme.verify({ headers, body })).toEqual(c.timestamped ? { timestamp: NOW } : {});
          const changed = Uint8Array.from(body);
          changed[at % body.length] = ((changed[at % body.length] ?? 0) + 1) & 0xff;
          expect(await codeOf(() => scheme.verify({ headers, body: changed }))).toBe('invalid_signature');
        },
      ),
      { numRuns: 200 },
    );
  });

  it('garbage headers yield WebhookError only', async () => {
    await fc.assert(
      fc.asyncProperty(
        configs,
        fc.oneof(
          fc.dictionary(fc.constantFrom('X-Sig', 'x-ts', 'x-sig'), fc.oneof(fc.string(), fc.anything())),
          fc.anything(),
        ),
        fc.oneof(fc.string(), fc.uint8Array(), fc.anything()),
        async (c, headers, body) => {
          let thrown: unknown;
          try {
            await build(c).verify({ headers: headers as Record<string, string>, body: body as string });
          } catch (error) {
            thrown = error;
          }
          expect(thrown).toBeInstanceOf(WebhookError);
        },
      ),
      { numRuns: 500 },
    );
  });
});
