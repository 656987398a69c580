/**
 * What a claim hands the worker, on every outbox: each delivery with its own endpoint (one object per
 * endpoint per claim, as the worker's signing cache expects), that endpoint as stored, and its
 * message's creation time to the millisecond — with several endpoints in one claim, on the plain
 * claim and on the rate-limited one.
 */
import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery, Endpoint, Outbox } from '../../runtime/deliver/outbox.js';
import { outboxFixtures } from './helpers.js';

const SECRETS = [
  'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
  'whsec_3qQ6kNTUUfnkE5GTWDvJWK7Af6QFZjJl',
];
// Milliseconds that a text round trip through microseconds or a float could get wrong.
const CREATED = [1764777600123, 1764777600999, 1764777601001];

async function seed(outbox: Outbox, rateLimit: number | undefined) {
  const endpoints: Endpoint[] = [];
  for (const [i, secret] of SECRETS.entries()) {
    endpoints.push(
      await outbox.createEndpoint(
        {
          url: `http://127.0.0.1:9/hook-${i}`,
          events: i === 0 ? ['*'] : ['pet.created', `pet.kind-${i}`],
          secret,
          description: `endpoint ${i}`,
          ...(rateLimit !== undefined && i === 2 ? { rateLimit } : {}),
        },
        CREATED[0] as number,
      ),
    );
  }
  // Four messages to every endpoint: claims carry several rows per endpoint.
  for (let m = 0; m < 4; m++) {
    await outbox.enqueue(
      {
        id: `msg_${m}`,
        eventType: 'pet.created',
        body: `{"n":${m}}`,
        headers: { 'x-n': String(m) },
        createdAt: CREATED[m % CREATED.length] as number,
      },
      { endpointIds: endpoints.map((e) => e.id) },
    );
  }
  return endpoints;
}

async function checkClaim(outbox: Outbox, endpoints: Endpoint[], claimed: ClaimedDelivery[]) {
  expect(claimed).toHaveLength(12);
  const objects = new Map<string, Endpoint>();
  for (const delivery of claimed) {
    const stored = await outbox.getDelivery(delivery.id);
    expect(delivery.endpoint.id).toBe(stored?.endpointId);
    const expected = endpoints.find((e) => e.id === delivery.endpoint.id);
    expect(delivery.endpoint).toEqual({ ...expected, consecutiveFailures: 0 });
    // One object per endpoint within a claim.
    const seen = objects.get(delivery.endpoint.id);
    if (seen) expect(delivery.endpoint).toBe(seen);
    else objects.set(delivery.endpoint.id, delivery.endpoint);
    const m = Number(delivery.messageId.slice('msg_'.length));
    expect(delivery.messageCreatedAt).toBe(CREATED[m % CREATED.length]);
    expect(delivery.body).toBe(`{"n":${m}}`);
    expect(delivery.headers).toEqual({ 'x-n': String(m) });
    expect(delivery.eventType).toBe('pet.created');
  }
  expect(objects.size).toBe(3);
}

describe.each(outboxFixtures)('$name outbox claim rows', (fixture) => {
  it.skipIf(fixture.skip)('carry each delivery its endpoint and its message time', async () => {
    const { outbox, cleanup } = await fixture.create('claimrows');
    try {
      const endpoints = await seed(outbox, undefined);
      const now = (CREATED[2] as number) + 1000;
      await checkClaim(
        outbox,
        endpoints,
        await outbox.claim({ owner: 'w', now, leaseMs: 30_000, limit: 50 }),
      );
    } finally {
      await cleanup();
    }
  });

  it.skipIf(fixture.skip)('carry them on the rate-limited claim too', async () => {
    const { outbox, cleanup } = await fixture.create('claimrowsrl');
    try {
      const endpoints = await seed(outbox, 1000);
      const now = (CREATED[2] as number) + 1000;
      // A default rate limit takes every endpoint through the rate-limited claim.
      await checkClaim(
        outbox,
        endpoints,
        await outbox.claim({ owner: 'w', now, leaseMs: 30_000, limit: 50, defaultRateLimit: 1000 }),
      );
    } finally {
      await cleanup();
    }
  });
});
