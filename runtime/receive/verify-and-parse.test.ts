import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adopted, delivery, type PetstoreEvents, petstore, SECRET } from '../../test/receiver/fixtures.js';
import type { Contract } from '../contract.js';
import { WebhookError } from '../errors.js';
import { createParser } from './receiver-web.js';

async function rejection(promise: Promise<unknown>): Promise<WebhookError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookError);
    return error as WebhookError;
  }
  throw new Error('expected a rejection');
}

describe('createParser().verifyAndParse', () => {
  const parser = createParser(petstore, { secret: SECRET });

  it('returns the verified, validated event from { body, headers } and from a Request', async () => {
    const d = delivery('pet.adopted', adopted());
    const event = await parser.verifyAndParse(d);
    expect(event).toMatchObject({ id: d.headers['webhook-id'], type: 'pet.adopted', data: adopted() });
    expect(event.timestamp).toBeInstanceOf(Date);
    const request = new Request('https://hooks.example/petstore', {
      method: 'POST',
      headers: d.headers,
      body: d.body,
    });
    expect(await parser.verifyAndParse(request)).toEqual(event);
    // Bytes work the same as text.
    expect(
      await parser.verifyAndParse({ headers: d.headers, body: new TextEncoder().encode(d.body) }),
    ).toEqual(event);
  });

  it('narrows data on type', async () => {
    const event = await parser.verifyAndParse(delivery('pet.listed', { petId: 'p', price: 3 }));
    if (event.type === 'pet.listed') expect(event.data.price).toBe(3);
    else throw new Error(`unexpected ${event.type}`);
  });

  it('throws invalid_signature (401) for a tampered body or a wrong secret', async () => {
    const d = delivery('pet.adopted', adopted());
    const tampered = await rejection(
      parser.verifyAndParse({ headers: d.headers, body: d.body.replace('rex', 'max') }),
    );
    expect([tampered.code, tampered.status]).toEqual(['invalid_signature', 401]);
    const other = createParser(petstore, { secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    expect((await rejection(other.verifyAndParse(d))).status).toBe(401);
  });

  it('throws outside the replay window (injected clock)', async () => {
    const now = 1_800_000_000_000;
    const clocked = createParser(petstore, { secret: SECRET, now: () => now });
    const old = delivery('pet.adopted', adopted(), { timestamp: now / 1000 - 301 });
    expect((await rejection(clocked.verifyAndParse(old))).code).toBe('timestamp_too_old');
  });

  it('throws invalid_payload with issues as JSON pointers into the body', async () => {
    const error = await rejection(parser.verifyAndParse(delivery('pet.adopted', { petId: '', adopter: {} })));
    expect([error.code, error.status]).toEqual(['invalid_payload', 400]);
    expect(error.details.issues?.map((i) => i.path).sort()).toEqual(['/data/adopter/name', '/data/petId']);
    // validation: 'off' hands the payload over as received.
    const loose = createParser(petstore, { secret: SECRET, validation: 'off' });
    expect((await loose.verifyAndParse(delivery('pet.adopted', { petId: '' }))).data).toEqual({ petId: '' });
  });

  it('throws unknown_event for a type the contract does not define, invalid_envelope / invalid_body for bad bodies', async () => {
    const unknown = await rejection(parser.verifyAndParse(delivery('pet.vanished', {})));
    expect([unknown.code, unknown.details['type']]).toEqual(['unknown_event', 'pet.vanished']);
    const unsigned: Contract<PetstoreEvents> = { ...petstore, signature: { kind: 'none' } };
    const notJson = await rejection(
      createParser(unsigned, {}).verifyAndParse({ headers: {}, body: '{not json' }),
    );
    expect([notJson.code, notJson.status]).toEqual(['invalid_body', 400]);
    const noType = delivery('pet.adopted', adopted(), { extra: { type: 42 } });
    expect((await rejection(parser.verifyAndParse(noType))).code).toBe('invalid_envelope');
  });

  it('throws payload_too_large above maxBodyBytes, for Requests and raw bodies', async () => {
    const small = createParser(petstore, { secret: SECRET, maxBodyBytes: 64 });
    const d = delivery('pet.adopted', adopted());
    expect((await rejection(small.verifyAndParse(d))).code).toBe('payload_too_large');
    const request = new Request('https://hooks.example/', {
      method: 'POST',
      headers: d.headers,
      body: d.body,
    });
    expect((await rejection(small.verifyAndParse(request))).status).toBe(413);
  });

  it('needs a secret for a signed contract', () => {
    expect(() => createParser(petstore, {})).toThrow(WebhookError);
  });

  it('throws only WebhookError, whatever the headers and body (property)', async () => {
    const headers = fc.dictionary(
      fc.constantFrom('webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type', 'x-other'),
      fc.string(),
    );
    await fc.assert(
      fc.asyncProperty(headers, fc.oneof(fc.string(), fc.uint8Array()), async (h, body) => {
        const error = await rejection(parser.verifyAndParse({ headers: h, body }));
        expect(error.status).toBeGreaterThanOrEqual(400);
        expect(error.status).toBeLessThan(500);
      }),
      { numRuns: 200 },
    );
  });
});
