import { describe, expect, it } from 'vitest';
import { adopted, delivery, petstore, SECRET } from '../../test/receiver/fixtures.js';
import type { Contract } from '../contract.js';
import { WebhookError } from '../errors.js';
import { githubPreset as githubNode } from '../presets/bound-node.js';
import { githubPreset as githubWeb } from '../presets/bound-web.js';
import { memoryStore } from '../stores/memory.js';
import { createReceiverWith } from './create-receiver.js';
import { asymmetricParts as nodeAsymmetric, standardWebhooksParts as nodeParts } from './parts-node.js';
import { asymmetricParts as webAsymmetric, standardWebhooksParts as webParts } from './parts-web.js';
import { createParserWith } from './verify-and-parse.js';

describe('receiver parts', () => {
  it.each([
    ['Web Crypto', webParts],
    ['node:crypto', nodeParts],
  ])(
    'a receiver with the Standard Webhooks parts alone (%s) verifies and handles its contract',
    async (_, parts) => {
      const seen: unknown[] = [];
      const receiver = createReceiverWith(
        petstore,
        {
          secret: SECRET,
          store: memoryStore(),
          handlers: { 'pet.adopted': (event) => void seen.push(event.data) },
        },
        parts,
      );
      const d = delivery('pet.adopted', adopted());
      expect((await receiver.handle(d)).outcome).toBe('processed');
      expect(seen).toEqual([adopted()]);
      expect((await receiver.handle({ ...d, body: `${d.body} ` })).status).toBe(401);
      const parser = createParserWith(petstore, { secret: SECRET }, parts);
      expect((await parser.verifyAndParse(d)).data).toEqual(adopted());
    },
  );

  it.each([
    ['Web Crypto', webParts, webAsymmetric],
    ['node:crypto', nodeParts, nodeAsymmetric],
  ])('refuses to build without the key the contract is verified with (%s)', (_, shared, pairs) => {
    const code = (build: () => unknown) => {
      try {
        build();
      } catch (error) {
        return error instanceof WebhookError ? `${error.code}: ${error.message}` : String(error);
      }
      return 'built';
    };
    expect(code(() => createReceiverWith(petstore, { dedupe: false } as never, shared))).toBe(
      'invalid_config: createReceiver needs the signing `secret` of "petstore"',
    );
    expect(code(() => createParserWith(petstore, {}, shared))).toMatch(/^invalid_config: createParser needs/);
    const keys: Contract = {
      ...(petstore as Contract),
      signature: { kind: 'asymmetric', header: 'X-Signature', algorithm: 'ed25519', encoding: 'base64' },
    };
    expect(code(() => createReceiverWith(keys, { secret: SECRET, dedupe: false } as never, pairs))).toMatch(
      /^invalid_config: createReceiver needs the `publicKey` of "petstore" \(its deliveries are signed with ed25519/,
    );
  });

  it.each([
    ['Web Crypto', webParts],
    ['node:crypto', nodeParts],
  ])("answers the sender's webhook.verification event (%s)", async (_, parts) => {
    const receiver = createReceiverWith(petstore, { secret: SECRET, store: memoryStore() }, parts);
    const answer = await receiver.handle(delivery('webhook.verification', { challenge: 'c-123' }));
    expect(answer).toMatchObject({ status: 200, body: '{"challenge":"c-123"}' });
  });

  it('binds each preset to its entry crypto: the same descriptor, schemes that agree', async () => {
    const { scheme: _w, ...web } = githubWeb;
    const { scheme: _n, ...node } = githubNode;
    expect(Object.keys(web)).toEqual(Object.keys(node));
    const body = JSON.stringify({ action: 'opened' });
    const headers = await githubNode.scheme({ secret: 'topsecret' }).sign({ id: 'd1', timestamp: 1, body });
    await expect(
      githubWeb
        .scheme({ secret: 'topsecret' })
        .verify({ headers: { ...headers, 'x-github-delivery': 'd1' }, body }),
    ).resolves.toBeDefined();
  });
});
