/**
 * Attack: change the letter case of a captured signature (`sha256=<hex>` → `SHA256=<HEX>`, a base64
 * letter, a scheme label) and post the copy again. A verifier that decodes hex case-insensitively
 * accepts it; a receiver that derives a fallback dedupe key from the header *text* then sees a new
 * event (the Slack preset did, for slash commands: the upper-cased copy ran the handler twice).
 *
 * What must hold: a signature is accepted only in its provider's canonical spelling, as the reference
 * libraries do (octokit, stripe-node and Bolt compare hex text; base64 is case-significant), so
 * every case-changed variant is rejected; Discord, whose reference library (discord-interactions)
 * decodes either hex case, may accept one, but then its dedupe key equals the original's. No
 * fallback dedupe key is ever taken from header text.
 */
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import fc from 'fast-check';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Contract, EventMapBase, SignatureConfig } from '../../runtime/contract.js';
import { WebhookError } from '../../runtime/errors.js';
import {
  type PresetName,
  type PresetSchemeOptions,
  providerContract,
  providers,
  withTwilioBodyHash,
} from '../../runtime/presets/index.js';
import { createReceiver } from '../../runtime/receive/index.js';
import { ed25519PrivateKey, rawPublicKey } from '../../runtime/signing/ed25519.js';
import { encodeHex } from '../../runtime/signing/encoding.js';
import { hmacScheme } from '../../runtime/signing/hmac-scheme.js';
import type { SignatureScheme, VerifiedDelivery } from '../../runtime/signing/scheme.js';
import { hmacSchemeWeb } from '../../runtime/signing/web.js';
import { memoryStore } from '../../runtime/stores/index.js';

const T = 1_732_000_000;
const now = () => T * 1000;
const seed = new Uint8Array(32).fill(7);
const TWILIO_URL = 'https://hooks.example.com/twilio/status';

interface Case {
  readonly options: PresetSchemeOptions;
  /** The header whose value is re-cased. */
  readonly header: string;
  readonly body: string;
  readonly headers?: Record<string, string>;
  readonly url?: string;
}

const SLASH_COMMAND = 'command=%2Fdeploy&text=prod&user_id=U1&team_id=T1&trigger_id=1.2.abc';
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const ecPkcs8 = new Uint8Array(ec.privateKey.export({ format: 'der', type: 'pkcs8' }));
const ecSpki = ec.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
const ecJwk = ec.publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string; y: string };

/** Graph and Mailgun carry their secret or signature in the body: see the describe block below. */
type HeaderSigned = Exclude<PresetName, 'microsoft-graph' | 'mailgun'>;

const CASES: Record<HeaderSigned, Case> = {
  // No `id` in the body: the fallback key is the one at stake.
  stripe: { options: { secret: 'whsec_case' }, header: 'Stripe-Signature', body: '{"type":"x.y"}' },
  github: { options: { secret: 'gh-case' }, header: 'X-Hub-Signature-256', body: '{"action":"opened"}' },
  shopify: { options: { secret: 'shpss_case' }, header: 'X-Shopify-Hmac-Sha256', body: '{"id":1}' },
  slack: {
    options: { secret: 'slack-case' },
    header: 'X-Slack-Signature',
    body: SLASH_COMMAND,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  },
  twilio: {
    options: { secret: 'twilio-case' },
    header: 'X-Twilio-Signature',
    body: '{"EventType":"x"}',
    headers: { 'content-type': 'application/json' },
    url: withTwilioBodyHash(TWILIO_URL, '{"EventType":"x"}'),
  },
  discord: {
    options: { secret: encodeHex(rawPublicKey(ed25519PrivateKey(seed))), signingKey: seed },
    header: 'X-Signature-Ed25519',
    body: '{"version":1,"type":1,"event":{"type":"X","data":{}}}',
  },
  svix: {
    options: { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    header: 'svix-signature',
    body: '{"type":"x"}',
  },
  zoom: { options: { secret: 'zoom-case' }, header: 'x-zm-signature', body: '{"event":"meeting.started"}' },
  twitch: {
    options: { secret: 'twitch-case-secret' },
    header: 'Twitch-Eventsub-Message-Signature',
    body: '{"subscription":{"type":"channel.follow"},"event":{}}',
  },
  meta: { options: { secret: 'meta-case' }, header: 'X-Hub-Signature-256', body: '{"object":"page"}' },
  'azure-event-grid': {
    options: { secret: 'eg-case-secret', secretIn: { header: 'X-Event-Secret' } },
    header: 'X-Event-Secret',
    body: '[{"id":"1","eventType":"x"}]',
  },
  square: {
    options: { secret: 'square-case' },
    header: 'x-square-hmacsha256-signature',
    body: '{"event_id":"e1","type":"x"}',
    url: 'https://hooks.example.com/square',
  },
  paddle: {
    options: { secret: 'paddle-case' },
    header: 'Paddle-Signature',
    body: '{"event_id":"evt_1","event_type":"x"}',
  },
  'lemon-squeezy': {
    options: { secret: 'ls-case' },
    header: 'X-Signature',
    body: '{"meta":{"event_name":"x"}}',
  },
  linear: {
    options: { secret: 'linear-case' },
    header: 'Linear-Signature',
    body: `{"type":"Issue","action":"create","data":{"id":"1"},"createdAt":"2024-01-01T00:00:00.000Z","webhookTimestamp":${T * 1000}}`,
  },
  intercom: {
    options: { secret: 'intercom-case' },
    header: 'X-Hub-Signature',
    body: '{"id":"notif_1","topic":"x"}',
  },
  hubspot: {
    options: { secret: 'hubspot-case' },
    header: 'X-HubSpot-Signature-v3',
    body: '[{"eventId":1,"subscriptionType":"x"}]',
    url: 'https://hooks.example.com/hubspot',
  },
  sendgrid: {
    options: { secret: ecSpki, signingKey: ecPkcs8 },
    header: 'X-Twilio-Email-Event-Webhook-Signature',
    body: '[{"sg_event_id":"s1","event":"x"}]',
  },
  plaid: {
    options: { secret: 'plaid-case', getKey: () => ecJwk, signingKey: ecPkcs8 },
    header: 'Plaid-Verification',
    body: '{"webhook_type":"ITEM","webhook_code":"ERROR"}',
  },
  okta: {
    options: { secret: 'okta-case-secret' },
    header: 'Authorization',
    body: '{"data":{"events":[{"uuid":"u1","eventType":"x"}]}}',
  },
};

/** Presets whose reference library rejects any change of case (hex compared as text, or base64). */
const CASE_SENSITIVE: readonly PresetName[] = [
  'stripe',
  'github',
  'shopify',
  'slack',
  'twilio',
  'svix',
  'zoom',
  'twitch',
  'meta',
  'azure-event-grid',
  'square',
  'paddle',
  'lemon-squeezy',
  'linear',
  'intercom',
  'hubspot',
  'sendgrid',
  'plaid',
  'okta',
];

/** Flips the case of the letters picked by `mask` (cycled over the value). */
function recase(value: string, mask: readonly boolean[]): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i] ?? '';
    const flip = mask[i % mask.length] === true;
    out += flip ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c;
  }
  return out;
}

const maskArb = fc.array(fc.boolean(), { minLength: 1, maxLength: 80 });

async function attempt(fn: () => unknown): Promise<unknown> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof WebhookError) return error;
    throw error;
  }
}

function withValue(headers: Record<string, string>, name: string, value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(headers))
    out[key] = key.toLowerCase() === name.toLowerCase() ? value : v;
  return out;
}

describe.each(Object.keys(CASES) as HeaderSigned[])('%s: a re-cased signature', (name) => {
  const c = CASES[name];
  const provider = providers[name];
  const scheme = provider.scheme({ ...c.options, now });
  const keyOf = (headers: Record<string, string>, verified: VerifiedDelivery) =>
    provider.eventId(headers, provider.parseBody(c.body, headers), verified);

  it(
    CASE_SENSITIVE.includes(name)
      ? 'is rejected, as the reference library rejects it (property)'
      : 'verifies only as the same event: the dedupe key is unchanged (property)',
    async () => {
      const signed = {
        ...(c.headers ?? {}),
        ...(await scheme.sign({ id: 'msg_1', timestamp: T, body: c.body, ...(c.url ? { url: c.url } : {}) })),
      };
      const original = (await scheme.verify({
        headers: signed,
        body: c.body,
        ...(c.url ? { url: c.url } : {}),
      })) as VerifiedDelivery;
      const originalKey = keyOf(signed, original);
      expect(originalKey).toBeDefined();
      const value =
        Object.entries(signed).find(([key]) => key.toLowerCase() === c.header.toLowerCase())?.[1] ?? '';
      expect(value).not.toBe('');
      await fc.assert(
        fc.asyncProperty(maskArb, async (mask) => {
          const variant = recase(value, mask);
          fc.pre(variant !== value);
          const headers = withValue(signed, c.header, variant);
          const result = await attempt(() =>
            scheme.verify({ headers, body: c.body, ...(c.url ? { url: c.url } : {}) }),
          );
          if (CASE_SENSITIVE.includes(name)) {
            expect(result).toBeInstanceOf(WebhookError);
          } else if (!(result instanceof WebhookError)) {
            expect(keyOf(headers, result as VerifiedDelivery)).toBe(originalKey);
          }
        }),
        { numRuns: 150 },
      );
    },
  );
});

describe('secrets and signatures carried in the body, re-cased', () => {
  it('microsoft-graph: a re-cased clientState is refused', async () => {
    const scheme = providers['microsoft-graph'].scheme({ secret: 'Graph-Client-State' });
    const body = (state: string) =>
      JSON.stringify({ value: [{ changeType: 'created', clientState: state }] });
    await scheme.verify({ headers: {}, body: body('Graph-Client-State') });
    await fc.assert(
      fc.asyncProperty(maskArb, async (mask) => {
        const variant = recase('Graph-Client-State', mask);
        fc.pre(variant !== 'Graph-Client-State');
        expect(await attempt(() => scheme.verify({ headers: {}, body: body(variant) }))).toBeInstanceOf(
          WebhookError,
        );
      }),
      { numRuns: 50 },
    );
  });

  it('mailgun: a re-cased signature.signature is refused', async () => {
    const scheme = providers.mailgun.scheme({ secret: 'mailgun-case', now });
    const signature = createHmac('sha256', 'mailgun-case').update(`${T}tok`).digest('hex');
    const body = (value: string) =>
      JSON.stringify({
        signature: { timestamp: String(T), token: 'tok', signature: value },
        'event-data': { id: '1', event: 'x' },
      });
    await scheme.verify({ headers: {}, body: body(signature) });
    await fc.assert(
      fc.asyncProperty(maskArb, async (mask) => {
        const variant = recase(signature, mask);
        fc.pre(variant !== signature);
        expect(await attempt(() => scheme.verify({ headers: {}, body: body(variant) }))).toBeInstanceOf(
          WebhookError,
        );
      }),
      { numRuns: 50 },
    );
  });
});

describe('the reference libraries agree', () => {
  it('@octokit/webhooks-methods rejects what the github preset rejects', async () => {
    const secret = 'gh-case';
    const body = '{"action":"opened"}';
    const scheme = providers.github.scheme({ secret });
    const value = (await scheme.sign({ id: 'd', timestamp: T, body }))['X-Hub-Signature-256'] ?? '';
    for (const variant of [value.toUpperCase(), `sha256=${value.slice(7).toUpperCase()}`]) {
      expect(await octokitVerify(secret, body, variant)).toBe(false);
      expect(
        await attempt(() => scheme.verify({ headers: { 'x-hub-signature-256': variant }, body })),
      ).toBeInstanceOf(WebhookError);
    }
  });

  it('stripe-node rejects what the stripe preset rejects', async () => {
    const secret = 'whsec_case';
    const body = '{"id":"evt_1","type":"x.y"}';
    const scheme = providers.stripe.scheme({ secret, now });
    const value = (await scheme.sign({ id: 'e', timestamp: T, body }))['Stripe-Signature'] ?? '';
    const upper = value.replace(/v1=([0-9a-f]+)/, (_, hex: string) => `v1=${hex.toUpperCase()}`);
    const client = new Stripe('sk_test_not_used_offline');
    expect(() => client.webhooks.constructEvent(body, upper, secret, 300, undefined, T * 1000)).toThrow();
    expect(
      await attempt(() => scheme.verify({ headers: { 'stripe-signature': upper }, body })),
    ).toBeInstanceOf(WebhookError);
  });
});

describe('the hmac scheme (node:crypto and Web Crypto)', () => {
  const config: Extract<SignatureConfig, { kind: 'hmac' }> = {
    kind: 'hmac',
    header: 'X-Webhook-Signature',
    algorithm: 'sha256',
    encoding: 'hex',
    prefix: 'sha256=',
  };
  const impls: Record<string, SignatureScheme> = {
    'node:crypto': hmacScheme(config, { secret: 's' }),
    'Web Crypto': hmacSchemeWeb(config, { secret: 's' }),
  };
  it.each(Object.keys(impls))('rejects every re-cased signature (%s, property)', async (impl) => {
    const scheme = impls[impl] as SignatureScheme;
    const body = '{"event":"pet.adopted"}';
    const value = (await scheme.sign({ id: 'm', timestamp: T, body }))['X-Webhook-Signature'] ?? '';
    await fc.assert(
      fc.asyncProperty(maskArb, async (mask) => {
        const variant = recase(value, mask);
        fc.pre(variant !== value);
        const result = await attempt(() =>
          scheme.verify({ headers: { 'x-webhook-signature': variant }, body }),
        );
        expect(result).toBeInstanceOf(WebhookError);
      }),
      { numRuns: 150 },
    );
  });
});

describe('a captured Slack slash command, re-cased', () => {
  it('runs the handler once', async () => {
    const secret = 'slack-case';
    const base = providerContract('slack', {});
    // Slash commands have no event.type: their own endpoint selects on `command` (docs/presets.md).
    const contract: Contract<EventMapBase> = {
      ...base,
      selector: { kind: 'body', field: 'command' },
      events: { '/deploy': { schema: z.unknown() } },
    };
    const runs: string[] = [];
    const receiver = createReceiver(contract, {
      secret,
      store: memoryStore(),
      now,
      handlers: { '/deploy': (event: { id: string }) => void runs.push(event.id) },
    } as never);
    const signed: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      ...(await providers.slack.scheme({ secret }).sign({ id: '-', timestamp: T, body: SLASH_COMMAND })),
    };
    expect((await receiver.handle({ headers: signed, body: SLASH_COMMAND })).outcome).toBe('processed');
    const value = signed['X-Slack-Signature'] ?? '';
    const upper = withValue(signed, 'X-Slack-Signature', `v0=${value.slice(3).toUpperCase()}`);
    const replay = await receiver.handle({ headers: upper, body: SLASH_COMMAND });
    expect(replay.outcome).toBe('rejected');
    expect(replay.status).toBe(400);
    expect((await receiver.handle({ headers: signed, body: SLASH_COMMAND })).outcome).toBe('duplicate');
    expect(runs).toHaveLength(1);
  });
});

describe('fallback dedupe keys come from signed bytes, never from header text', () => {
  it('stripe: an event without an id keeps its key when re-signed with a new timestamp (a retry)', async () => {
    const scheme = providers.stripe.scheme({ secret: 'whsec_case', now });
    const body = '{"type":"x.y"}';
    const keys = new Set<string | undefined>();
    for (const t of [T - 60, T]) {
      const headers = await scheme.sign({ id: '-', timestamp: t, body });
      const verified = await scheme.verify({ headers, body });
      keys.add(providers.stripe.eventId(headers, providers.stripe.parseBody(body, headers), verified));
    }
    expect(keys.size).toBe(1);
  });

  it('twilio: another spelling of the signed URL (default port) is the same event', async () => {
    const scheme = providers.twilio.scheme({ secret: 'twilio-case' });
    const body = 'CallSid=CA1&CallStatus=completed';
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const headers = { ...form, ...(await scheme.sign({ id: '-', timestamp: T, body, url: TWILIO_URL })) };
    delete (headers as Record<string, string>)['I-Twilio-Idempotency-Token'];
    const ported = TWILIO_URL.replace('example.com/', 'example.com:443/');
    const a = await scheme.verify({ headers, body, url: TWILIO_URL });
    const b = await scheme.verify({ headers, body, url: ported });
    expect(a.id).toMatch(/^twilio:[0-9a-f]{64}$/);
    expect(b.id).toBe(a.id);
  });
});
