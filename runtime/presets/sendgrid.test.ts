/**
 * SendGrid, cross-checked with Twilio SendGrid's own library (@sendgrid/eventwebhook:
 * EventWebhook.verifySignature, ECDSA P-256 over timestamp + payload) on a locally generated key
 * pair; the verification key is given as SendGrid shows it (base64 DER public key).
 */
import { generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { EventWebhook } from '@sendgrid/eventwebhook';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clockAt, expectCode, tamper } from '../../test/presets/helpers.js';
import { sendgrid } from './sendgrid.js';

const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const publicKey = pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
const privatePkcs8 = new Uint8Array(pair.privateKey.export({ format: 'der', type: 'pkcs8' }));
const T = 1_732_000_000;
const body = `${JSON.stringify([
  { email: 'a@example.com', timestamp: T, event: 'delivered', sg_event_id: 'sg_1', sg_message_id: 'm1' },
  { email: 'b@example.com', timestamp: T, event: 'open', sg_event_id: 'sg_2', sg_message_id: 'm2' },
])}\r\n`;
const HEADERS = {
  signature: 'X-Twilio-Email-Event-Webhook-Signature',
  timestamp: 'X-Twilio-Email-Event-Webhook-Timestamp',
} as const;

function theirSignature(timestamp: string, payload: string): string {
  // As SendGrid signs: ECDSA P-256 / SHA-256 of timestamp + payload, DER, base64.
  return nodeSign('sha256', Buffer.from(timestamp + payload), pair.privateKey).toString('base64');
}

describe('sendgrid preset vs @sendgrid/eventwebhook', () => {
  const library = new EventWebhook();
  const libraryKey = library.convertPublicKeyToECDSA(publicKey);
  const scheme = sendgrid.scheme({ secret: publicKey, signingKey: privatePkcs8, now: clockAt(T) });

  it('agrees with verifySignature on genuine and altered deliveries (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.json({ maxDepth: 2 }), fc.boolean(), async (payload, alter) => {
        const signature = theirSignature(String(T), payload);
        const received = alter ? `${payload}x` : payload;
        const theirs = library.verifySignature(libraryKey, received, signature, String(T));
        const ours = await Promise.resolve(
          scheme.verify({
            headers: { [HEADERS.signature]: signature, [HEADERS.timestamp]: String(T) },
            body: received,
          }),
        ).then(
          () => true,
          (error: { code?: string }) => (error.code === 'invalid_signature' ? false : error.code),
        );
        expect(ours).toBe(theirs);
      }),
      { numRuns: 60 },
    );
  });

  it('signs what verifySignature accepts, and keys a batch on its sg_event_ids', async () => {
    const headers = await scheme.sign({ id: '-', timestamp: T, body });
    expect(library.verifySignature(libraryKey, body, headers[HEADERS.signature] ?? '', String(T))).toBe(true);
    const verified = await scheme.verify({ headers, body });
    expect(verified.timestamp).toBe(T);
    expect(verified.id).toMatch(/^sendgrid-batch:[0-9a-f]{64}$/);
    const parsed = sendgrid.parseBody(body, headers) as { type: string; events: unknown[] };
    expect(parsed.type).toBe('batch');
    expect(parsed.events).toHaveLength(2);
    const one = JSON.stringify([{ event: 'bounce', sg_event_id: 'sg_9', email: 'c@example.com' }]);
    const single = await scheme.verify({
      headers: await scheme.sign({ id: '-', timestamp: T, body: one }),
      body: one,
    });
    expect(single.id).toBe('sg_9');
    expect(sendgrid.eventType({}, sendgrid.parseBody(one, {}))).toBe('bounce');
  });

  it('refuses tampering, stale timestamps, a PEM of another key, and malformed signatures', async () => {
    const headers = await scheme.sign({ id: '-', timestamp: T, body });
    await expectCode(() => scheme.verify({ headers, body: tamper(body) }), 'invalid_signature');
    await expectCode(
      () => sendgrid.scheme({ secret: publicKey, now: clockAt(T + 301) }).verify({ headers, body }),
      'timestamp_too_old',
    );
    const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({
      format: 'pem',
      type: 'spki',
    });
    await expectCode(
      () => sendgrid.scheme({ secret: String(other), now: clockAt(T) }).verify({ headers, body }),
      'invalid_signature',
    );
    // Rotation: the old key and the new one.
    await sendgrid.scheme({ secret: [String(other), publicKey], now: clockAt(T) }).verify({ headers, body });
    await expectCode(
      () => scheme.verify({ headers: { ...headers, [HEADERS.signature]: 'bm90IGEgc2lnbmF0dXJl' }, body }),
      'malformed_header',
    );
  });
});
