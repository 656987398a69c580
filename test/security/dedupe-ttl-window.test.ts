/**
 * Threat: a dedupe TTL shorter than the replay window lets a captured delivery run twice.
 *
 * Attack: a receiver remembers processed ids for `ttlMs`, and its scheme accepts a signed timestamp
 * for `past` seconds behind and `future` seconds ahead of its clock. With `ttlMs` below
 * `past + future`, an attacker who captured one delivery waits until its id left the store and sends
 * it again while its timestamp is still accepted: the signature verifies, the id is new again, the
 * handler runs a second time.
 *
 * What must hold: for every scheme that signs a timestamp (Standard Webhooks, `hmac`/`asymmetric`
 * with a `timestampHeader`, each timestamped preset with its own default tolerance, and a receiver's
 * `tolerance` override) createReceiver refuses such a TTL with `invalid_config` naming both numbers;
 * a TTL that covers the window is accepted; with the smallest accepted TTL a replay at the last
 * instant of the window is still a duplicate. Schemes without a signed timestamp are unchanged.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Contract, EventMapBase, SignatureConfig } from '../../runtime/contract.js';
import { WebhookError } from '../../runtime/errors.js';
import { getProvider } from '../../runtime/presets/registry.js';
import type { PresetName } from '../../runtime/presets/types.js';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import { PRESET_TOLERANCE } from '../../runtime/receive/replay-window.js';
import { standardWebhookHeaders } from '../../runtime/signing/standard-webhooks.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import type { Tolerance } from '../../runtime/timestamp.js';
import { petstore, SECRET } from '../receiver/fixtures.js';

const TTL = 60_000;

const ed25519 = generateKeyPairSync('ed25519')
  .publicKey.export({ format: 'der', type: 'spki' })
  .subarray(-32)
  .toString('hex');
const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .publicKey.export({ format: 'der', type: 'spki' })
  .toString('base64');
/** A key each preset's scheme accepts (most take any shared secret). */
const KEYS: { readonly [preset: string]: string } = { discord: ed25519, sendgrid: p256 };

const PRESETS = [
  'stripe',
  'github',
  'shopify',
  'slack',
  'twilio',
  'discord',
  'svix',
  'zoom',
  'twitch',
  'meta',
  'microsoft-graph',
  'azure-event-grid',
  'square',
  'paddle',
  'lemon-squeezy',
  'linear',
  'intercom',
  'hubspot',
  'mailgun',
  'sendgrid',
  'plaid',
  'okta',
] as const satisfies readonly PresetName[];

function presetContract(preset: PresetName): Contract<EventMapBase> {
  const provider = getProvider(preset);
  return {
    name: preset,
    version: '1.0.0',
    events: {},
    signature: provider.signature,
    envelope: provider.envelope,
    selector: provider.selector,
  } as Contract<EventMapBase>;
}

const signedBy = (signature: SignatureConfig): Contract<EventMapBase> =>
  ({ ...petstore, signature }) as Contract<EventMapBase>;

function build(contract: Contract<EventMapBase>, options: object): unknown {
  const preset = contract.signature.kind === 'preset' ? contract.signature.preset : '';
  // A key-pair contract is verified with its public key alone (a secret would be its private key).
  const key =
    contract.signature.kind === 'asymmetric' ? { publicKey: ed25519 } : { secret: KEYS[preset] ?? SECRET };
  return createReceiver(contract, { ...key, store: memoryStore(), ...options } as never);
}

function refusal(run: () => unknown): WebhookError | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookError) return error;
    throw error;
  }
  return undefined;
}

/** The window in ms for a tolerance: both sides, plus one second of whole-second timestamps. */
const windowOf = (tolerance: Tolerance): { past: number; future: number; total: number } => {
  const { past, future } = typeof tolerance === 'number' ? { past: tolerance, future: tolerance } : tolerance;
  return { past: past * 1000, future: future * 1000, total: (past + future) * 1000 + 1000 };
};

const timestamped: [string, Contract<EventMapBase>, Tolerance][] = [
  ['standard-webhooks', petstore as Contract<EventMapBase>, 300],
  [
    'hmac with a timestampHeader',
    signedBy({
      kind: 'hmac',
      header: 'x-signature',
      algorithm: 'sha256',
      encoding: 'hex',
      timestampHeader: 'x-timestamp',
      idHeader: 'x-id',
    }),
    300,
  ],
  [
    'asymmetric with a timestampHeader',
    signedBy({
      kind: 'asymmetric',
      header: 'x-signature',
      algorithm: 'ed25519',
      encoding: 'base64',
      timestampHeader: 'x-timestamp',
    }),
    300,
  ],
  ...PRESETS.filter((p) => getProvider(p).declared.timestampSigned).map(
    (p): [string, Contract<EventMapBase>, Tolerance] => [p, presetContract(p), PRESET_TOLERANCE[p] ?? NaN],
  ),
];

describe('dedupe TTL against the replay window', () => {
  it('knows the default tolerance of exactly the presets that sign a timestamp', () => {
    const signing = PRESETS.filter((p) => getProvider(p).declared.timestampSigned);
    expect(Object.keys(PRESET_TOLERANCE).sort()).toEqual([...signing].sort());
    expect(PRESET_TOLERANCE).toMatchObject({ twitch: 600, linear: 60, paddle: 5, stripe: 300 });
  });

  it.each(timestamped)(
    '%s: a TTL below the window is invalid_config naming both numbers',
    (name, contract, tolerance) => {
      const { past, future, total } = windowOf(tolerance);
      const ttlMs = Math.min(TTL, total - 1);
      const e = refusal(() => build(contract, { ttlMs }));
      expect(e?.code, `${name} accepted ttlMs ${ttlMs}`).toBe('invalid_config');
      expect(e?.message).toContain(`ttlMs (${ttlMs})`);
      expect(e?.message).toContain(`${past} past + ${future} future`);
      expect(e?.message).toContain(`= ${total} ms`);
      // The window covered: accepted.
      expect(refusal(() => build(contract, { ttlMs: total }))).toBeUndefined();
    },
  );

  it('a receiver tolerance override moves the window (both ways), and a store TTL is checked too', () => {
    const shorter = refusal(() =>
      build(petstore as Contract<EventMapBase>, { tolerance: 10, ttlMs: 21_000 }),
    );
    expect(shorter).toBeUndefined();
    const split = refusal(() =>
      build(petstore as Contract<EventMapBase>, { tolerance: { past: 600, future: 30 }, ttlMs: 600_000 }),
    );
    expect(split?.message).toContain(
      '600000 past + 30000 future + 1000 for whole-second timestamps = 631000 ms',
    );
    const twitch = refusal(() => build(presetContract('twitch'), { tolerance: 30, ttlMs: 61_000 }));
    expect(twitch).toBeUndefined();
    const store = { ...memoryStore(), ttlMs: 5_000 };
    const e = refusal(() => createReceiver(petstore, { secret: SECRET, store }));
    expect(e?.message).toContain("the store's ttlMs (5000)");
  });

  it.each(PRESETS.filter((p) => !getProvider(p).declared.timestampSigned))(
    '%s (no signed timestamp): any TTL is still accepted',
    (preset) => {
      expect(refusal(() => build(presetContract(preset), { ttlMs: 1 }))).toBeUndefined();
    },
  );

  it('without dedupe, or with a contract that signs no timestamp, nothing changes', () => {
    expect(
      refusal(() => createReceiver(petstore, { secret: SECRET, dedupe: false, ttlMs: 1 })),
    ).toBeUndefined();
    const noTimestamp = signedBy({
      kind: 'hmac',
      header: 'x-signature',
      algorithm: 'sha256',
      encoding: 'hex',
    });
    expect(refusal(() => build(noTimestamp, { ttlMs: 1 }))).toBeUndefined();
  });

  it('with the smallest accepted TTL, a replay at the last instant of the window is a duplicate', async () => {
    const { total } = windowOf(300);
    let clock = 0;
    const handled: string[] = [];
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      ttlMs: total,
      now: () => clock,
      handlers: { 'pet.adopted': (event) => void handled.push(event.id) },
    });
    // Signed 300 s in the future (the earliest it is accepted), replayed 300 s in the past of a
    // clock that reads the last millisecond of that second: the whole window apart.
    const timestamp = 1_800_000_000;
    const body = JSON.stringify({
      id: 'evt_replayed',
      type: 'pet.adopted',
      timestamp: '2027-01-15T08:00:00Z',
      data: { petId: 'p1', adopter: { name: 'Ann' } },
    });
    const headers = standardWebhookHeaders({ id: 'msg_replayed', timestamp, body, secret: SECRET });
    clock = (timestamp - 300) * 1000;
    expect(await receiver.handle({ headers, body })).toMatchObject({ status: 200, outcome: 'processed' });
    clock = (timestamp + 301) * 1000 - 1;
    expect(await receiver.handle({ headers, body })).toMatchObject({ status: 200, outcome: 'duplicate' });
    // One millisecond later the timestamp is outside the window: refused, whatever the store says.
    clock += 1;
    expect(await receiver.handle({ headers, body })).toMatchObject({ status: 400 });
    expect(handled).toEqual(['msg_replayed']);
  });
});
