import { describe, expect, it } from 'vitest';
import { adopted, delivery, type PetstoreEvents, petstore, SECRET } from '../../test/receiver/fixtures.js';
import type { Contract } from '../contract.js';
import { WebhookError } from '../errors.js';
import { githubPreset as githubNode } from '../presets/bound-node.js';
import { githubPreset as githubWeb, stripePreset } from '../presets/bound-web.js';
import { memoryStore } from '../stores/memory.js';
import { createReceiverWith } from './create-receiver.js';
import { presetParts } from './parts.js';
import { hmacParts, standardWebhooksParts as nodeParts } from './parts-node.js';
import { unsignedParts, standardWebhooksParts as webParts } from './parts-web.js';
import { createParserWith } from './verify-and-parse.js';

function configError(build: () => unknown): WebhookError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookError);
    return error as WebhookError;
  }
  throw new Error('expected invalid_config');
}

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

  it('refuses parts of another scheme kind, another preset or without a body decoder (invalid_config)', () => {
    expect(
      configError(() => createReceiverWith(petstore, { secret: SECRET, dedupe: false }, hmacParts)).code,
    ).toBe('invalid_config');
    expect(configError(() => createParserWith(petstore, { secret: SECRET }, unsignedParts)).message).toMatch(
      /signed with "standard-webhooks" but the receiver was built for "none"/,
    );
    const github: Contract<PetstoreEvents> = { ...petstore, signature: { kind: 'preset', preset: 'github' } };
    expect(
      configError(() => createReceiverWith(github, { secret: 'x', dedupe: false }, presetParts(stripePreset)))
        .message,
    ).toMatch(/preset is "github" but the receiver was built with "stripe"/);
    expect(
      configError(() => createReceiverWith(github, { secret: 'x', dedupe: false }, webParts)).message,
    ).toMatch(/needs presetParts/);
    const form: Contract<PetstoreEvents> = { ...petstore, bodies: { form: true } };
    expect(
      configError(() => createReceiverWith(form, { secret: SECRET, dedupe: false }, webParts)).message,
    ).toMatch(/declares bodies/);
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
