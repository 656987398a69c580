/**
 * Attack: hand a provider preset's verifier request headers it does not expect — a header getter or
 * proxy that throws, arrays of mixed values, numbers, symbols, a `Headers`-like `get` that throws —
 * so that reading them throws something other than a `WebhookError`. A plain `Error` escaping a
 * verifier is answered 500 (and retried, and logged with a stack) instead of being refused.
 *
 * What must hold: for every preset (Stripe, GitHub, …, Plaid, Okta: all of `providers`) and any
 * header input, `verify` either succeeds or throws a `WebhookError` with a 4xx status, and a receiver
 * on that preset answers 4xx, never 500.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebhookError } from '../../runtime/errors.js';
import {
  type PresetName,
  type PresetSchemeOptions,
  providerContract,
  providers,
} from '../../runtime/presets/index.js';
import { createReceiver } from '../../runtime/receive/index.js';
import { ed25519PrivateKey, rawPublicKey } from '../../runtime/signing/ed25519.js';
import { encodeHex } from '../../runtime/signing/encoding.js';
import type { HeadersInput } from '../../runtime/signing/scheme.js';
import { memoryStore } from '../../runtime/stores/index.js';

const T = 1_732_000_000;
const now = () => T * 1000;
const URL_ = 'https://hooks.example.com/in?x=1';
const seed = new Uint8Array(randomBytes(32));
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const ecSpki = ec.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
const ecJwk = ec.publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string; y: string };

const OPTIONS: Record<PresetName, PresetSchemeOptions> = {
  stripe: { secret: 'whsec_errors' },
  github: { secret: 'gh-errors', legacySha1: true },
  shopify: { secret: 'shpss_errors', maxAge: 600 },
  slack: { secret: 'slack-errors' },
  twilio: { secret: 'twilio-errors' },
  discord: { secret: encodeHex(rawPublicKey(ed25519PrivateKey(seed))), signingKey: seed },
  svix: { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  zoom: { secret: 'zoom-errors' },
  twitch: { secret: 'twitch-errors' },
  meta: { secret: 'meta-errors', verifyToken: 'token' },
  'microsoft-graph': { secret: 'graph-errors' },
  'azure-event-grid': { secret: 'eg-errors' },
  square: { secret: 'square-errors' },
  paddle: { secret: 'paddle-errors' },
  'lemon-squeezy': { secret: 'ls-errors' },
  linear: { secret: 'linear-errors' },
  intercom: { secret: 'intercom-errors', maxAge: 600 },
  hubspot: { secret: 'hubspot-errors' },
  mailgun: { secret: 'mailgun-errors' },
  sendgrid: { secret: ecSpki },
  plaid: { secret: 'plaid-errors', getKey: () => ecJwk },
  okta: { secret: 'okta-errors' },
};
const names = Object.keys(OPTIONS) as PresetName[];

/** Every header some preset reads, in the spellings a client might use. */
const HEADER_NAMES = [
  'Stripe-Signature',
  'X-Hub-Signature-256',
  'X-Hub-Signature',
  'X-GitHub-Delivery',
  'X-GitHub-Event',
  'X-Shopify-Hmac-Sha256',
  'X-Shopify-Webhook-Id',
  'X-Shopify-Event-Id',
  'X-Shopify-Topic',
  'X-Shopify-Triggered-At',
  'X-Slack-Signature',
  'X-Slack-Request-Timestamp',
  'X-Twilio-Signature',
  'X-Twilio-Webhooks-Signature-Settings',
  'I-Twilio-Idempotency-Token',
  'X-Signature-Ed25519',
  'X-Signature-Timestamp',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'svix-id',
  'svix-timestamp',
  'svix-signature',
  'x-zm-signature',
  'x-zm-request-timestamp',
  'Twitch-Eventsub-Message-Id',
  'Twitch-Eventsub-Message-Timestamp',
  'Twitch-Eventsub-Message-Signature',
  'Twitch-Eventsub-Message-Type',
  'x-square-hmacsha256-signature',
  'Paddle-Signature',
  'X-Signature',
  'Linear-Signature',
  'Linear-Delivery',
  'X-HubSpot-Signature-v3',
  'X-HubSpot-Request-Timestamp',
  'X-Twilio-Email-Event-Webhook-Signature',
  'X-Twilio-Email-Event-Webhook-Timestamp',
  'Plaid-Verification',
  'Authorization',
  'X-Okta-Verification-Challenge',
  'WebHook-Request-Origin',
  'content-type',
];

const THROW = Symbol('throw');
type Value = unknown;

const valueArb: fc.Arbitrary<Value> = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
  fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.constant(null)), { maxLength: 3 }),
  fc.integer(),
  fc.bigInt(),
  fc.constant(Symbol('header')),
  fc.constant(null),
  fc.boolean(),
  fc.object({ maxDepth: 1 }),
  fc.constant({
    toString() {
      throw new Error('toString');
    },
  }),
  fc.constant(THROW),
);

const entriesArb = fc.array(
  fc.tuple(
    fc.oneof(
      fc.constantFrom(...HEADER_NAMES),
      fc.constantFrom(...HEADER_NAMES).map((n) => n.toLowerCase()),
      fc.string({ minLength: 1, maxLength: 12 }),
    ),
    valueArb,
  ),
  { maxLength: 8 },
);

/** A record whose THROW entries are getters that throw (a lazy framework header object). */
function record(entries: readonly [string, Value][], proto: object | null): Record<string, unknown> {
  const out = Object.create(proto) as Record<string, unknown>;
  for (const [name, value] of entries) {
    Object.defineProperty(out, name, {
      enumerable: true,
      configurable: true,
      ...(value === THROW
        ? {
            get() {
              throw new TypeError(`cannot read ${name}`);
            },
          }
        : { value }),
    });
  }
  return out;
}

const containerArb = fc.constantFrom(
  'record',
  'null-prototype',
  'proxy-get-throws',
  'proxy-keys-throw',
  'headers-like-get-throws',
  'headers-like-get-odd',
  'not-an-object',
);

function headersFor(kind: string, entries: readonly [string, Value][]): unknown {
  switch (kind) {
    case 'record':
      return record(entries, Object.prototype);
    case 'null-prototype':
      return record(entries, null);
    case 'proxy-get-throws':
      return new Proxy(record(entries, Object.prototype), {
        get() {
          throw new RangeError('proxy get');
        },
      });
    case 'proxy-keys-throw':
      return new Proxy(record(entries, Object.prototype), {
        ownKeys() {
          throw new Error('proxy ownKeys');
        },
        getOwnPropertyDescriptor() {
          throw new Error('proxy descriptor');
        },
      });
    case 'headers-like-get-throws':
      return {
        get(name: string) {
          throw new Error(`get ${name}`);
        },
      };
    case 'headers-like-get-odd': {
      const values = new Map(entries.map(([name, value]) => [name.toLowerCase(), value]));
      return {
        get(name: string) {
          const value = values.get(name);
          if (value === THROW) throw new Error(`get ${name}`);
          return value;
        },
      };
    }
    default:
      return entries.length % 2 === 0 ? 42 : 'x-hub-signature-256: sha256=00';
  }
}

async function outcome(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
    return 'ok';
  } catch (error) {
    return error;
  }
}

describe.each(names)('%s: verify over arbitrary header inputs', (name) => {
  const scheme = providers[name].scheme({ ...OPTIONS[name], now });

  it('throws WebhookError (4xx) and nothing else (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        containerArb,
        entriesArb,
        fc.oneof(fc.string({ maxLength: 40 }), fc.uint8Array({ maxLength: 40 })),
        async (kind, entries, body) => {
          const headers = headersFor(kind, entries) as HeadersInput;
          const result = await outcome(() => scheme.verify({ headers, body, url: URL_ }));
          if (result === 'ok') return;
          expect(result).toBeInstanceOf(WebhookError);
          expect((result as WebhookError).status).toBeLessThan(500);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a receiver answers a throwing header getter with 4xx, not 500', async () => {
    const receiver = createReceiver(providerContract(name, {}), {
      secret: OPTIONS[name].secret as string,
      preset: OPTIONS[name],
      store: memoryStore(),
      now,
      ackFast: false,
      handlers: {},
    } as never);
    // Handshakes read headers before verification (GET, OPTIONS): they must refuse the same way.
    for (const method of [undefined, 'POST', 'GET', 'OPTIONS']) {
      for (const kind of ['record', 'proxy-get-throws', 'headers-like-get-throws']) {
        const headers = headersFor(
          kind,
          HEADER_NAMES.map((n) => [n, THROW]),
        ) as HeadersInput;
        const result = await receiver.handle({
          headers,
          body: '{}',
          url: URL_,
          ...(method ? { method } : {}),
        });
        expect(result.status, `${method} ${kind}`).toBeGreaterThanOrEqual(400);
        expect(result.status, `${method} ${kind}`).toBeLessThan(500);
        expect(result.error).toBeInstanceOf(WebhookError);
      }
    }
  });
});
