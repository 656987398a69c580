/**
 * The opt-in features as parts: ack-fast (`ackFast: ackFastQueue()`, or a preset's default through
 * its parts), declared handshakes (`handshakes: contractHandshakes`) and `receiver.node()` (the Node
 * parts only). A feature the options ask for without its part is a typed `invalid_config`, never a
 * silent fallback; the parts a contract's features need are the generator's to hand over (its
 * emitter's `receiverParts`, tested here), which `createReceiverWith` does not re-check.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ACK_FAST_PRESETS, receiverParts } from '../../generator/emit/receiver-file.js';
import type { ContractModel } from '../../generator/model.js';
import { adopted, delivery, petstore, SECRET } from '../../test/receiver/fixtures.js';
import type { Contract, EventMapBase } from '../contract.js';
import { WebhookError } from '../errors.js';
import type { HandshakeConfig } from '../handshake-config.js';
import { slackPreset } from '../presets/bound-node.js';
import { providerContract } from '../presets/provider-contract.js';
import { providers } from '../presets/registry.js';
import { memoryStore } from '../stores/memory.js';
import { sqliteStore } from '../stores/sqlite.js';
import { ackFastQueue } from './ack-fast-mode.js';
import { contractHandshakes } from './contract-handshakes.js';
import { createReceiverWith } from './create-receiver.js';
import { contentId } from './parts.js';
import { standardWebhooksParts as nodeParts, presetParts } from './parts-node.js';
import { unsignedParts, standardWebhooksParts as webParts } from './parts-web.js';

function configError(build: () => unknown): WebhookError {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookError);
    expect((error as WebhookError).code).toBe('invalid_config');
    return error as WebhookError;
  }
  throw new Error('expected invalid_config');
}

const slack = providerContract('slack', {
  app_mention: z.object({ type: z.literal('app_mention'), text: z.string() }),
});

async function slackDelivery(id: string) {
  const body = JSON.stringify({
    type: 'event_callback',
    event_id: id,
    event_time: 1_732_000_000,
    event: { type: 'app_mention', text: id },
  });
  const headers = await providers.slack
    .scheme({ secret: 's' })
    .sign({ id, timestamp: Math.floor(Date.now() / 1000), body });
  return { headers: { 'content-type': 'application/json', ...headers }, body };
}

describe('feature parts', () => {
  it('ack-fast runs with ackFast: ackFastQueue() on the contract parts alone', async () => {
    const seen: string[] = [];
    const receiver = createReceiverWith(
      petstore,
      {
        secret: SECRET,
        store: memoryStore(),
        ackFast: ackFastQueue(),
        handlers: { 'pet.adopted': (event) => void seen.push(event.data.petId) },
      },
      webParts,
    );
    expect(await receiver.handle(delivery('pet.adopted', adopted('q1')))).toMatchObject({
      outcome: 'queued',
    });
    expect(seen).toEqual([]);
    expect(await receiver.drain()).toEqual({ processed: 1, failed: 0 });
    expect(seen).toEqual(['q1']);
    await receiver.stop();
  });

  it('a preset that defaults to ack-fast queues only when its parts carry ack-fast', async () => {
    const db = new Database(':memory:');
    const options = { secret: 's', store: sqliteStore(db), handlers: { app_mention: () => undefined } };
    const inline = createReceiverWith(slack, options, presetParts(slackPreset));
    const r1 = await inline.handle(await slackDelivery('Ev1'));
    expect(r1.outcome).toBe('processed');
    const queued = createReceiverWith(slack, options, {
      ...presetParts(slackPreset),
      ackFast: ackFastQueue(),
    });
    expect((await queued.handle(await slackDelivery('Ev2'))).outcome).toBe('queued');
    await queued.stop();
    const optOut = createReceiverWith(
      slack,
      { ...options, ackFast: false },
      {
        ...presetParts(slackPreset),
        ackFast: ackFastQueue(),
      },
    );
    expect((await optOut.handle(await slackDelivery('Ev3'))).outcome).toBe('processed');
    db.close();
  });

  it('ack-fast without a durable queue is invalid_config', () => {
    const base = { secret: SECRET, store: memoryStore() };
    const noQueue = { ...memoryStore(), queue: undefined };
    configError(() =>
      createReceiverWith(petstore, { ...base, store: noQueue, ackFast: ackFastQueue() } as never, webParts),
    );
  });

  it('declared handshakes are answered with the handshakes part', async () => {
    const echo: HandshakeConfig = {
      kind: 'echo',
      method: 'GET',
      challenge: { query: 'challenge' },
    } as HandshakeConfig;
    const contract = { ...petstore, handshakes: [echo] } as Contract<EventMapBase>;
    const options = { secret: SECRET, store: memoryStore() };
    const receiver = createReceiverWith(contract, options, { ...webParts, handshakes: contractHandshakes });
    const answer = await receiver.handle({
      method: 'GET',
      url: 'https://x.test/h?challenge=abc',
      headers: {},
      body: '',
    });
    expect(answer).toMatchObject({ status: 200, body: 'abc' });
  });

  it('a delivery without an id is deduplicated by its content with the contentId part', async () => {
    const contract = {
      ...petstore,
      signature: { kind: 'none' },
      envelope: { kind: 'envelope', optional: ['id'] },
    } as Contract<EventMapBase>;
    const seen: string[] = [];
    const receiver = createReceiverWith(
      contract,
      {
        store: memoryStore(),
        handlers: { 'pet.adopted': (event: { id: string }) => void seen.push(event.id) },
      },
      { ...unsignedParts, contentId },
    );
    const body = JSON.stringify({
      type: 'pet.adopted',
      timestamp: new Date().toISOString(),
      data: adopted(),
    });
    const first = await receiver.handle({ headers: { 'content-type': 'application/json' }, body });
    const again = await receiver.handle({ headers: { 'content-type': 'application/json' }, body });
    expect(first).toMatchObject({ status: 200, outcome: 'processed' });
    expect(again).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(seen).toEqual([first.id]);
    expect(first.id).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('receiver.node() comes with the Node parts only', () => {
    const options = { secret: SECRET, store: memoryStore() };
    expect(typeof createReceiverWith(petstore, options, nodeParts).node()).toBe('function');
    expect(configError(() => createReceiverWith(petstore, options, webParts).node()).message).toMatch(
      /fetch/,
    );
  });
});

describe("the generator's receiver parts", () => {
  const model = (fields: object) => fields as unknown as ContractModel;

  it('knows the presets that default to ack-fast', () => {
    const expected = Object.values(providers)
      .filter((preset) => preset.defaultMode === 'ack-fast')
      .map((preset) => preset.name);
    expect(expected.length).toBeGreaterThan(0);
    expect([...ACK_FAST_PRESETS].sort()).toEqual([...expected].sort());
  });

  it('emits the feature parts a contract needs, and no other', () => {
    const byType = { kind: 'body', field: 'type' };
    const events = [{ name: 'a' }, { name: 'b', match: { body: 'c' } }];
    const base = { selector: byType, events, envelope: { kind: 'envelope' } };
    expect(receiverParts(model({ ...base, signature: { kind: 'hmac' } })).expression).toBe('hmacParts');
    // A delivery that may carry no id is identified by its content: the contentId part.
    for (const envelope of [
      { kind: 'bare' },
      { kind: 'envelope', absent: ['id'] },
      { kind: 'envelope', optional: ['id'] },
    ]) {
      for (const kind of ['hmac', 'none', 'asymmetric']) {
        expect(receiverParts(model({ ...base, envelope, signature: { kind } })).imports).toContain(
          'contentId',
        );
      }
      // Standard Webhooks signs a webhook-id into every delivery; a preset's parts carry contentId.
      expect(
        receiverParts(model({ ...base, envelope, signature: { kind: 'standard-webhooks' } })).imports,
      ).not.toContain('contentId');
    }
    expect(
      receiverParts(
        model({
          ...base,
          signature: { kind: 'preset', preset: 'github' },
          envelope: { kind: 'bare' },
          selector: { kind: 'header', header: 'X-GitHub-Event', bodyField: 'action' },
        }),
      ),
    ).toEqual({
      imports: ['presetParts', 'githubPreset', 'headerSelector'],
      expression: '{ ...presetParts(githubPreset), headerSelector }',
    });
    expect(
      receiverParts(
        model({ ...base, signature: { kind: 'preset', preset: 'slack' }, envelope: { kind: 'envelope' } }),
      ),
    ).toEqual({
      imports: ['presetParts', 'slackPreset', 'envelopeReader', 'ackFastQueue'],
      expression: '{ ...presetParts(slackPreset), envelope: envelopeReader, ackFast: ackFastQueue() }',
    });
    expect(
      receiverParts(
        model({ ...base, signature: { kind: 'standard-webhooks' }, handshakes: [{ kind: 'cloudevents' }] }),
      ),
    ).toEqual({
      imports: ['standardWebhooksParts', 'contractHandshakes'],
      expression: '{ ...standardWebhooksParts, handshakes: contractHandshakes }',
    });
    // The choice by schema: the schema selector, a schema fallback, or events sharing a type value.
    const sw = { signature: { kind: 'standard-webhooks' }, events };
    for (const selector of [{ kind: 'schema' }, { ...byType, fallback: 'schema' }]) {
      expect(receiverParts(model({ ...sw, selector })).expression).toBe(
        '{ ...standardWebhooksParts, schemaSelector }',
      );
    }
    const shared = [...events, { name: 'c' }];
    expect(receiverParts(model({ ...sw, selector: byType, events: shared })).imports).toContain(
      'schemaSelector',
    );
  });
});
