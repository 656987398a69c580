/** Event selection (#17): body discriminators with the key as fallback, schema selection, unknown events. */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { receiverParts } from '../../generator/emit/receiver-file.js';
import type { ContractModel } from '../../generator/model.js';
import type { Contract } from '../contract.js';
import { standardWebhookHeaders } from '../signing/standard-webhooks.js';
import { memoryStore } from '../stores/memory.js';
import { createDispatcher } from './dispatch.js';
import { envelopeReader } from './envelope-reader.js';
import { createReceiver } from './receiver-web.js';
import { headerSelector } from './select-header.js';
import { schemaSelector } from './select-schema.js';

const all = { envelope: envelopeReader, headerSelector, schemaSelector };

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

type BatchEvents = { batch_completed: { id: string }; batch_failed: { id: string } };

const batch: Contract<BatchEvents> = {
  name: 'batches',
  events: {
    batch_completed: { schema: z.object({ id: z.string() }), match: { body: 'batch.completed' } },
    batch_failed: { schema: z.object({ id: z.string() }) },
  },
  signature: { kind: 'standard-webhooks' },
  envelope: { kind: 'envelope', absent: ['id'], optional: ['timestamp'] },
  selector: { kind: 'envelope-type' },
};

describe('createDispatcher', () => {
  it("selects by the body's own type value, falling back to the event's key", () => {
    const dispatch = createDispatcher(batch, all);
    expect(dispatch({ type: 'batch.completed', data: { id: 'b' } }, {}, { id: 'msg_1' })).toMatchObject({
      event: 'batch_completed',
      id: 'msg_1',
      data: { id: 'b' },
    });
    expect(dispatch({ type: 'batch_failed', data: {} }, {}, {}).event).toBe('batch_failed');
    // An event's key selects it too (senders that write the key rather than the documented value).
    expect(dispatch({ type: 'batch_completed', data: {} }, {}, {}).event).toBe('batch_completed');
    expect(dispatch({ type: 'batch.started', data: {} }, {}, {}).event).toBeUndefined();
  });

  it('a match value wins over another event named like it', () => {
    const dispatch = createDispatcher(
      {
        ...(batch as Contract),
        events: {
          a: { schema: z.unknown(), match: { body: 'b' } },
          b: { schema: z.unknown(), match: { body: 'c' } },
        },
      },
      all,
    );
    expect(dispatch({ type: 'b', data: 1 }, {}, {}).event).toBe('a');
    expect(dispatch({ type: 'c', data: 1 }, {}, {}).event).toBe('b');
    expect(dispatch({ type: 'a', data: 1 }, {}, {}).event).toBe('a');
  });

  it('schema selector: the one event whose schema accepts the body; one event always', () => {
    const contract: Contract = {
      name: 'shapes',
      events: {
        invoice: { schema: z.object({ amount: z.number() }) },
        overdue: { schema: z.object({ invoice: z.object({}), daysOverdue: z.number() }) },
        loose: { schema: z.object({ amount: z.number(), note: z.string() }) },
      },
      signature: { kind: 'none' },
      envelope: { kind: 'bare' },
      selector: { kind: 'schema' },
    };
    const dispatch = createDispatcher(contract, all);
    expect(dispatch({ invoice: {}, daysOverdue: 2 }, {}, {}).event).toBe('overdue');
    expect(dispatch({ amount: 1 }, {}, {}).event).toBe('invoice');
    const both = dispatch({ amount: 1, note: 'x' }, {}, {});
    expect(both.event).toBeUndefined();
    expect(both.type).toContain('ambiguous');
    expect(dispatch({ nothing: true }, {}, {}).event).toBeUndefined();
    const single = createDispatcher({ ...contract, events: { only: { schema: z.number() } } }, all);
    expect(single('not a number', {}, {}).event).toBe('only');
  });

  it("needs the parts the generator's receiverParts hands over, and no other", () => {
    const bare = { ...(batch as Contract), envelope: { kind: 'bare' } } as const;
    const shapes = { a: { schema: z.object({ a: z.string() }) }, b: { schema: z.object({ b: z.number() }) } };
    const cases: [Contract, unknown, Record<string, string>][] = [
      [batch, { type: 'batch_failed', data: {} }, {}],
      [{ ...bare, selector: { kind: 'body', field: 'type' } }, { type: 'batch_failed' }, {}],
      [
        {
          ...bare,
          selector: { kind: 'header', header: 'X-Event' },
          events: { a: { schema: z.unknown(), match: { header: 'a' } } },
        },
        {},
        { 'x-event': 'a' },
      ],
      [{ ...bare, selector: { kind: 'schema' }, events: shapes }, { a: 'x' }, {}],
      [
        { ...bare, selector: { kind: 'body', field: 'type', fallback: 'schema' }, events: shapes },
        { b: 1 },
        {},
      ],
      // Two events sharing a type value are told apart by their schemas.
      [
        {
          ...bare,
          selector: { kind: 'body', field: 'type' },
          events: {
            a: { schema: z.object({ a: z.string() }) },
            b: { schema: z.object({ b: z.number() }), match: { body: 'a' } },
          },
        },
        { type: 'a', a: 'x' },
        {},
      ],
    ];
    for (const [index, [contract, body, headers]] of cases.entries()) {
      const model = {
        ...contract,
        events: Object.entries(contract.events).map(([name, event]) => ({ name, match: event.match })),
      } as unknown as ContractModel;
      const names = receiverParts(model).imports;
      // A scheme's parts always carry the envelope reader.
      const parts = {
        envelope: envelopeReader,
        ...(names.includes('headerSelector') ? { headerSelector } : {}),
        ...(names.includes('schemaSelector') ? { schemaSelector } : {}),
      };
      expect(createDispatcher(contract, parts)(body, headers, {}).event, `case ${index}`).toBeDefined();
      expect(createDispatcher(contract, all)(body, headers, {})).toEqual(
        createDispatcher(contract, parts)(body, headers, {}),
      );
    }
  });
});

describe('unknown events are never a silent 200', () => {
  const deliver = (body: unknown) => {
    const text = JSON.stringify(body);
    return {
      headers: standardWebhookHeaders({
        secret: SECRET,
        id: 'msg_u1',
        timestamp: Math.floor(Date.now() / 1000),
        body: text,
      }),
      body: text,
    };
  };

  it('reports to onError with outcome ignored', async () => {
    const onError = vi.fn();
    const receiver = createReceiver(batch, { secret: SECRET, store: memoryStore(), handlers: {}, onError });
    const result = await receiver.handle(deliver({ type: 'batch.started', data: {} }));
    expect(result).toMatchObject({ status: 200, outcome: 'ignored' });
    expect(onError).toHaveBeenCalledTimes(1);
    const [error, context] = onError.mock.calls[0] as [{ code: string; details: unknown }, unknown];
    expect(error.code).toBe('unknown_event');
    expect(error.details).toEqual({ type: 'batch.started' });
    expect(context).toMatchObject({ outcome: 'ignored', id: 'msg_u1' });
  });

  it('logs once per type to the console without onError; known events without a handler stay quiet', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const receiver = createReceiver(batch, { secret: SECRET, dedupe: false, handlers: {} });
      await receiver.handle(deliver({ type: 'batch.started', data: {} }));
      await receiver.handle(deliver({ type: 'batch.started', data: {} }));
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toContain('batch.started');
      await receiver.handle(deliver({ type: 'batch.completed', data: { id: 'b' } }));
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });

  it('a matched delivery reaches its handler with the signed header id', async () => {
    const seen: unknown[] = [];
    const receiver = createReceiver(batch, {
      secret: SECRET,
      store: memoryStore(),
      handlers: { batch_completed: (event) => void seen.push([event.id, event.data]) },
    });
    const result = await receiver.handle(deliver({ type: 'batch.completed', data: { id: 'b' } }));
    expect(result.outcome).toBe('processed');
    expect(seen).toEqual([['msg_u1', { id: 'b' }]]);
  });
});

describe('body selector with a schema fallback', () => {
  it('selects by the field where the body has it, by schema where it has none', () => {
    const dispatch = createDispatcher(
      {
        name: 'mixed',
        events: {
          'merchant.created': {
            schema: z.object({ type: z.literal('merchant.created'), data: z.object({}) }),
          },
          'terminal.assigned': { schema: z.object({ uniqueTerminalId: z.string() }) },
        },
        signature: { kind: 'none' },
        envelope: { kind: 'bare' },
        selector: { kind: 'body', field: 'type', fallback: 'schema' },
      },
      all,
    );
    expect(dispatch({ type: 'merchant.created', data: {} }, {}, {}).event).toBe('merchant.created');
    expect(dispatch({ uniqueTerminalId: 'T1' }, {}, {}).event).toBe('terminal.assigned');
    expect(dispatch({ type: 'other', uniqueTerminalId: 'T1' }, {}, {}).event).toBeUndefined();
    expect(dispatch({ data: {} }, {}, {}).event).toBeUndefined();
  });
});

describe('schema selector: the most specific schema wins', () => {
  it('picks the accepting event that declares the most of the body fields; a tie selects none', () => {
    const loose = (fields: string[]) => ({
      schema: z.looseObject(Object.fromEntries(fields.map((f) => [f, z.unknown().optional()]))),
      fields,
    });
    const dispatch = createDispatcher(
      {
        name: 'lights',
        events: {
          lightMeasured: loose(['id', 'lumens', 'sentAt']),
          turnOnOff: loose(['command', 'sentAt']),
          dimLight: loose(['percentage', 'sentAt']),
        },
        signature: { kind: 'none' },
        envelope: { kind: 'bare' },
        selector: { kind: 'schema' },
      },
      all,
    );
    expect(dispatch({ id: 1, lumens: 3, sentAt: 'x' }, {}, {}).event).toBe('lightMeasured');
    expect(dispatch({ command: 'on', sentAt: 'x' }, {}, {}).event).toBe('turnOnOff');
    expect(dispatch({ sentAt: 'x' }, {}, {}).event).toBeUndefined();
    expect(dispatch({}, {}, {}).type).toContain('ambiguous');
  });
});
