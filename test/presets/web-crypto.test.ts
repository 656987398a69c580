/**
 * The presets bound to Web Crypto (the Web entry's `providers`) agree with the node:crypto ones on
 * everything: the same headers for the same input (HMAC and Ed25519 are deterministic), each accepts
 * what the other signed, and both reject a changed body or garbage headers with the same error.
 * Twilio needs node:querystring and refuses to build on the Web.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebhookError } from '../../runtime/errors.js';
import { getDescriptor } from '../../runtime/presets/catalog.js';
import { providers } from '../../runtime/presets/registry.js';
import { providers as webProviders } from '../../runtime/presets/registry-web.js';
import type { PresetName, PresetSchemeOptions } from '../../runtime/presets/types.js';
import { ed25519PrivateKey, rawPublicKey } from '../../runtime/signing/ed25519.js';
import { encodeHex } from '../../runtime/signing/encoding.js';
import type { HeadersInput, RawBody } from '../../runtime/signing/scheme.js';
import { clockAt, expectCode } from './helpers.js';

const T = 1_732_000_000;
const seed = new Uint8Array(randomBytes(32));

type BoundName = Extract<PresetName, 'stripe' | 'github' | 'shopify' | 'slack' | 'discord' | 'svix'>;

// The presets bound to each runtime's crypto (the others are written on Web Crypto, one object for both).
const OPTIONS: Record<BoundName, PresetSchemeOptions> = {
  stripe: { secret: ['whsec_old', 'whsec_web_test'] },
  github: { secret: 'gh secret', legacySha1: true },
  shopify: { secret: 'shpss_web', maxAge: 600 },
  slack: { secret: 'slack-signing-secret' },
  discord: { secret: encodeHex(rawPublicKey(ed25519PrivateKey(seed))), signingKey: seed },
  svix: { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
};
const names = Object.keys(OPTIONS) as (keyof typeof OPTIONS)[];

const bodyArb: fc.Arbitrary<RawBody> = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }),
);

type Outcome = { ok: unknown } | { code: string; status: number };
async function outcome(fn: () => unknown): Promise<Outcome> {
  try {
    return { ok: await fn() };
  } catch (error) {
    if (error instanceof WebhookError) return { code: error.code, status: error.status };
    throw error;
  }
}

describe.each(names)('%s on Web Crypto', (name) => {
  const node = providers[name].scheme({ ...OPTIONS[name], now: clockAt(T) });
  const web = webProviders[name].scheme({ ...OPTIONS[name], now: clockAt(T) });

  it('signs the same headers and accepts what node:crypto signed (and back)', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/), async (body, id) => {
        const input = { id, timestamp: T, body };
        const fromNode = await node.sign(input);
        const fromWeb = await web.sign(input);
        expect(fromWeb).toEqual(fromNode);
        expect(await web.verify({ headers: fromNode, body })).toEqual(
          await node.verify({ headers: fromNode, body }),
        );
        expect(await node.verify({ headers: new Headers(fromWeb), body })).toEqual(
          await web.verify({ headers: new Headers(fromWeb), body }),
        );
      }),
      { numRuns: 60 },
    );
  });

  it('rejects a changed body and garbage headers exactly as node:crypto does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 80 }),
        fc.nat(),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.string({ maxLength: 40 }), {
          maxKeys: 3,
        }),
        async (body, at, junk) => {
          const headers = await node.sign({ id: 'msg_1', timestamp: T, body });
          const changed = Uint8Array.from(body);
          changed[at % changed.length] = (changed[at % changed.length] ?? 0) ^ 0x01;
          const tampered = await outcome(() => web.verify({ headers, body: changed }));
          expect(tampered).toEqual(await outcome(() => node.verify({ headers, body: changed })));
          expect(tampered).toMatchObject({ code: 'invalid_signature' });
          const garbage = { ...junk, ...headers, ...junk } as HeadersInput;
          expect(await outcome(() => web.verify({ headers: garbage, body }))).toEqual(
            await outcome(() => node.verify({ headers: garbage, body })),
          );
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('twilio on Web Crypto', () => {
  it('refuses to build (it needs node:querystring) with invalid_config', async () => {
    const error = await expectCode(
      () => webProviders.twilio.scheme({ secret: 'auth-token' }),
      'invalid_config',
    );
    expect(error.message).toMatch(/Node/);
  });
});

describe('the presets written on Web Crypto', () => {
  const bound = new Set<PresetName>([...names, 'twilio']);
  const webOnly = (Object.keys(providers) as PresetName[]).filter((name) => !bound.has(name));

  it('are fifteen, each in both registries and in the catalog', () => {
    expect(webOnly).toHaveLength(15);
    expect(Object.keys(webProviders).sort()).toEqual(Object.keys(providers).sort());
    for (const name of webOnly) {
      expect(webProviders[name]).toBe(providers[name]);
      expect(getDescriptor(name).declared).toBe(providers[name].declared);
    }
  });

  it('verify on the Node and Web registries alike (zoom)', async () => {
    const options = { secret: 'zoom-secret-token', now: clockAt(T) };
    const body = '{"event":"meeting.started","payload":{}}';
    const headers = await webProviders.zoom.scheme(options).sign({ id: 'x', timestamp: T, body });
    expect(await providers.zoom.scheme(options).verify({ headers, body })).toEqual(
      await webProviders.zoom.scheme(options).verify({ headers, body }),
    );
    await expectCode(
      () => providers.zoom.scheme(options).verify({ headers, body: `${body} ` }),
      'invalid_signature',
    );
  });
});
