/**
 * The `hooks` and `tracing` options take observers that carry their own code (`receiverHooks`,
 * `receiveTracing`, `otelTracing`): a plain object is `invalid_config`, a custom tracer gets its span,
 * phases and attributes through `receiveTracing`, the two observe one delivery together, and a
 * throwing tracer or hook never changes an answer. The same on the Node and the Web parts.
 */
import { describe, expect, it } from 'vitest';
import { adopted, delivery, petstore, SECRET } from '../../test/receiver/fixtures.js';
import { WebhookError } from '../errors.js';
import type { DeliverySpan, ReceiveTracing } from '../otel/types.js';
import { memoryStore } from '../stores/memory.js';
import { createReceiverWith } from './create-receiver.js';
import type { ReceiverParts } from './parts.js';
import { standardWebhooksParts as nodeParts } from './parts-node.js';
import { standardWebhooksParts as webParts } from './parts-web.js';
import { receiveTracing } from './receive-tracing.js';
import { receiverHooks } from './receiver-hooks.js';

/** A tracer that writes what it is told into `log`. */
function recordingTracer(log: string[], fail?: 'start' | 'attributes'): ReceiveTracing {
  return {
    startDelivery(): DeliverySpan {
      if (fail === 'start') throw new Error('tracer down');
      return {
        phase(name) {
          log.push(`phase ${name}`);
          return { end: (error) => void log.push(`end ${name}${error === undefined ? '' : ' (error)'}`) };
        },
        setAttributes(attributes) {
          if (fail === 'attributes') throw new Error('tracer down');
          log.push(`attributes ${attributes['webhook.id']} ${attributes['webhook.type']}`);
        },
        end: (outcome, error) => void log.push(`span ${outcome}${error ? ` ${error.code}` : ''}`),
      };
    },
  };
}

describe.each([
  ['node', nodeParts],
  ['web', webParts],
] as [string, ReceiverParts][])('observers on the %s parts', (_name, parts) => {
  it('a plain hooks or tracing object is invalid_config', () => {
    for (const options of [{ hooks: { processed() {} } }, { tracing: recordingTracer([]) }]) {
      try {
        createReceiverWith(petstore, { secret: SECRET, dedupe: false, ...(options as object) }, parts);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(WebhookError);
        expect((error as WebhookError).code).toBe('invalid_config');
        expect((error as WebhookError).message).toMatch(/receiverHooks/);
      }
    }
  });

  it('hooks and a custom tracer observe the same delivery, in order', async () => {
    const log: string[] = [];
    const receiver = createReceiverWith(
      petstore,
      {
        secret: SECRET,
        store: memoryStore(),
        tracing: receiveTracing(recordingTracer(log)),
        hooks: receiverHooks({
          received: () => void log.push('hook received'),
          verified: () => void log.push('hook verified'),
          processed: ({ outcome }) => void log.push(`hook ${outcome}`),
          duplicate: () => void log.push('hook duplicate'),
        }),
        handlers: { 'pet.adopted': () => void log.push('handler') },
      },
      parts,
    );
    const d = delivery('pet.adopted', adopted(), { id: 'msg_observed' });
    expect((await receiver.handle(d)).status).toBe(200);
    expect(log).toEqual([
      'hook received',
      'phase verify',
      'hook verified',
      'end verify',
      'attributes msg_observed pet.adopted',
      'phase validate',
      'end validate',
      'phase claim',
      'end claim',
      'phase handle',
      'handler',
      'end handle',
      'span processed',
      'hook processed',
    ]);
    log.length = 0;
    expect((await receiver.handle(d)).status).toBe(200);
    expect(log.at(-2)).toBe('span duplicate');
    expect(log.at(-1)).toBe('hook duplicate');
    log.length = 0;
    expect((await receiver.handle({ ...d, body: d.body.replace('rex', 'rey') })).status).toBe(401);
    expect(log).toEqual([
      'hook received',
      'phase verify',
      'end verify (error)',
      'span rejected invalid_signature',
    ]);
  });

  it.each(['start', 'attributes'] as const)('a tracer that throws at %s changes no answer', async (fail) => {
    const handled: string[] = [];
    const receiver = createReceiverWith(
      petstore,
      {
        secret: SECRET,
        store: memoryStore(),
        tracing: receiveTracing(recordingTracer([], fail)),
        hooks: receiverHooks({
          processed: () => {
            throw new Error('hook down');
          },
        }),
        handlers: { 'pet.adopted': ({ id }) => void handled.push(id) },
      },
      parts,
    );
    const d = delivery('pet.adopted', adopted());
    expect((await receiver.handle(d)).status).toBe(200);
    expect((await receiver.handle(d)).status).toBe(200);
    expect(handled).toHaveLength(1);
  });
});
