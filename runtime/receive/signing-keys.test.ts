/**
 * Receivers and parsers verify Standard Webhooks `v1a` with the `whpk_` public key and refuse a
 * `whsk_` signing key (`invalid_key`, at construction): whoever holds it can forge deliveries. The
 * same on every path: the generated receivers' Node and Web parts, and the entries' createReceiver /
 * createParser for any contract. The sender side keeps taking `whsk_`.
 */
import { describe, expect, it } from 'vitest';
import { adopted, delivery, petstore, SECRET } from '../../test/receiver/fixtures.js';
import { WebhookError } from '../errors.js';
import { generateEd25519KeyPair } from '../signing/ed25519.js';
import { standardWebhooks } from '../signing/standard-webhooks.js';
import { createReceiverWith } from './create-receiver.js';
import type { ReceiverParts } from './parts.js';
import { standardWebhooksParts as nodeParts } from './parts-node.js';
import { standardWebhooksParts as webParts } from './parts-web.js';
import { createParser as nodeParser, createReceiver as nodeReceiver } from './receiver-node.js';
import { createParser as webParser, createReceiver as webReceiver } from './receiver-web.js';
import { createParserWith } from './verify-and-parse.js';

const pair = generateEd25519KeyPair();

type Build = (secret: string | string[]) => { handle?: unknown; verifyAndParse?: unknown };
const withParts = (parts: ReceiverParts): Build[] => [
  (secret) => createReceiverWith(petstore, { secret, dedupe: false }, parts),
  (secret) => createParserWith(petstore, { secret }, parts),
];
const builds: [string, Build][] = [
  ...withParts(nodeParts).map((b, i): [string, Build] => [`node parts ${i ? 'parser' : 'receiver'}`, b]),
  ...withParts(webParts).map((b, i): [string, Build] => [`web parts ${i ? 'parser' : 'receiver'}`, b]),
  ['node createReceiver', (secret) => nodeReceiver(petstore, { secret, dedupe: false })],
  ['web createReceiver', (secret) => webReceiver(petstore, { secret, dedupe: false })],
  ['node createParser', (secret) => nodeParser(petstore, { secret })],
  ['web createParser', (secret) => webParser(petstore, { secret })],
];

function thrown(build: () => unknown): WebhookError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookError);
    return error as WebhookError;
  }
  throw new Error('expected a WebhookError');
}

/** A delivery signed with the Ed25519 signing key alone (`v1a`). */
async function signedV1a() {
  const plain = delivery('pet.adopted', adopted());
  const id = plain.headers['webhook-id'] ?? '';
  const timestamp = Number(plain.headers['webhook-timestamp']);
  const headers = await standardWebhooks({ secret: pair.secretKey }).sign({
    id,
    timestamp,
    body: plain.body,
  });
  const all: Record<string, string> = { 'content-type': 'application/json', ...headers };
  return { headers: all, body: plain.body };
}

describe('Standard Webhooks keys at receivers', () => {
  it.each(builds)('%s refuses a whsk_ signing key, alone or in a rotation', (_name, build) => {
    for (const secret of [pair.secretKey, [SECRET, pair.secretKey]]) {
      const error = thrown(() => build(secret));
      expect(error.code).toBe('invalid_key');
      expect(error.message).toMatch(/whpk_/);
    }
  });

  it.each([
    ['node', nodeParts],
    ['web', webParts],
  ] as const)(
    '%s parts verify v1a with the whpk_ public key and refuse a tampered body',
    async (_name, parts) => {
      const handled: string[] = [];
      const receiver = createReceiverWith(
        petstore,
        {
          secret: pair.publicKey,
          dedupe: false,
          handlers: { 'pet.adopted': ({ id }) => void handled.push(id) },
        },
        parts,
      );
      const signed = await signedV1a();
      expect((await receiver.handle(signed)).status).toBe(200);
      expect(handled).toHaveLength(1);
      const tampered = await receiver.handle({ ...signed, body: signed.body.replace('rex', 'rey') });
      expect(tampered.status).toBe(401);
      expect(handled).toHaveLength(1);
    },
  );

  it('a sender still signs with whsk_', async () => {
    const signed = await signedV1a();
    expect(signed.headers['webhook-signature']).toMatch(/^v1a,/);
  });
});
