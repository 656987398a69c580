import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EnvelopeConfig } from './contract.js';
import { buildEnvelope, envelopeFields, parseEnvelope, readEnvelope } from './envelope.js';
import { WebhookError } from './errors.js';
import { idTime } from './id.js';
import { standardWebhooks } from './signing/standard-webhooks.js';

const STANDARD: EnvelopeConfig = { kind: 'envelope' };
const PETSTORE: EnvelopeConfig = { kind: 'envelope', fields: { type: 'event' }, apiVersion: '2024-01-01' };

function errorOf(run: () => unknown): WebhookError {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookError) return error;
    throw error;
  }
  throw new Error('expected a WebhookError');
}

describe('buildEnvelope', () => {
  it('builds the Standard Webhooks envelope with a fresh time-sortable id', () => {
    const body = buildEnvelope(STANDARD, {
      type: 'invoice.paid',
      data: { amount: 5 },
      now: () => Date.UTC(2026, 0, 2),
    });
    expect(body).toEqual({
      id: expect.stringMatching(/^msg_[0-9A-Z]{26}$/),
      type: 'invoice.paid',
      timestamp: '2026-01-02T00:00:00.000Z',
      data: { amount: 5 },
    });
    expect(idTime(String((body as { id: string }).id))).toBeGreaterThan(0);
  });

  it('honours field renames and the API version, in a stable field order', () => {
    const body = buildEnvelope(PETSTORE, {
      type: 'pet.adopted',
      data: { petId: 1 },
      id: 'evt_1',
      timestamp: new Date(Date.UTC(2026, 5, 1, 8)),
    });
    expect(JSON.stringify(body)).toBe(
      '{"id":"evt_1","event":"pet.adopted","timestamp":"2026-06-01T08:00:00.000Z","apiVersion":"2024-01-01","data":{"petId":1}}',
    );
  });

  it('accepts ISO strings and epoch milliseconds, rejects invalid ones', () => {
    expect(
      buildEnvelope(STANDARD, { type: 't', data: 1, id: 'a', timestamp: '2026-01-01T00:00:00+02:00' }),
    ).toMatchObject({
      timestamp: '2026-01-01T00:00:00+02:00',
    });
    expect(buildEnvelope(STANDARD, { type: 't', data: 1, id: 'a', timestamp: 0 })).toMatchObject({
      timestamp: '1970-01-01T00:00:00.000Z',
    });
    expect(errorOf(() => buildEnvelope(STANDARD, { type: 't', data: 1, timestamp: 'yesterday' })).code).toBe(
      'invalid_argument',
    );
    expect(errorOf(() => buildEnvelope(STANDARD, { type: '', data: 1 })).code).toBe('invalid_argument');
  });

  it('returns the payload itself for bare contracts', () => {
    const data = { action: 'opened' };
    expect(buildEnvelope({ kind: 'bare' }, { type: 'issues', data })).toBe(data);
  });

  it('yields a webhook-id header equal to the envelope id', async () => {
    const body = buildEnvelope(STANDARD, { type: 'x', data: {} }) as { id: string };
    const headers = await standardWebhooks({ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }).sign({
      id: body.id,
      timestamp: 1_700_000_000,
      body: JSON.stringify(body),
    });
    expect(headers['webhook-id']).toBe(body.id);
  });

  it('rejects clashing field names', () => {
    expect(errorOf(() => envelopeFields({ kind: 'envelope', fields: { type: 'id' } })).code).toBe(
      'invalid_config',
    );
    expect(errorOf(() => envelopeFields({ kind: 'bare' })).code).toBe('invalid_config');
  });
});

describe('parseEnvelope', () => {
  it('round-trips what buildEnvelope produced, from objects and JSON text', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(STANDARD, PETSTORE),
        fc.string({ minLength: 1 }),
        fc.jsonValue(),
        (config, type, data) => {
          const body = buildEnvelope(config, { type, data });
          const parsed = parseEnvelope(config, JSON.parse(JSON.stringify(body)));
          expect(parsed.type).toBe(type);
          expect(parsed.data).toEqual(JSON.parse(JSON.stringify(data ?? null)));
          expect(parseEnvelope(config, JSON.stringify(body))).toEqual(parsed);
          if (config === PETSTORE) expect(parsed.apiVersion).toBe('2024-01-01');
        },
      ),
    );
  });

  it('points at the field at fault', () => {
    const valid = { id: 'evt_1', event: 'pet.adopted', timestamp: '2026-01-01T00:00:00Z', data: {} };
    const cases: Array<[unknown, string]> = [
      [[], ''],
      ['"text"', ''],
      [{ ...valid, id: undefined }, '/id'],
      [{ ...valid, id: 5 }, '/id'],
      [{ ...valid, event: '' }, '/event'],
      [{ ...valid, timestamp: '2026-13-01T00:00:00Z' }, '/timestamp'],
      [{ ...valid, timestamp: 1700000000 }, '/timestamp'],
      [{ id: 'a', event: 'b', timestamp: '2026-01-01T00:00:00Z' }, '/data'],
      [{ ...valid, apiVersion: 3 }, '/apiVersion'],
    ];
    const names = envelopeFields(PETSTORE);
    for (const [input, pointer] of cases) {
      const error = errorOf(() => parseEnvelope(PETSTORE, input));
      expect(error.code).toBe('invalid_envelope');
      expect(error.details.pointer).toBe(pointer);
      // The receivers' reader (names computed once) answers any object the same.
      if (typeof input === 'object' && !Array.isArray(input)) {
        expect(errorOf(() => readEnvelope(names, input as Record<string, unknown>))).toEqual(error);
      }
    }
    expect(readEnvelope(names, valid)).toEqual(parseEnvelope(PETSTORE, valid));
    const renamed: EnvelopeConfig = { kind: 'envelope', fields: { data: 'pay/load~x' } };
    expect(
      errorOf(() => parseEnvelope(renamed, { id: 'a', type: 'b', timestamp: '2026-01-01T00:00:00Z' })).details
        .pointer,
    ).toBe('/pay~1load~0x');
  });

  it('reports invalid JSON text as invalid_body', () => {
    expect(errorOf(() => parseEnvelope(STANDARD, '{"id":')).code).toBe('invalid_body');
  });
});

describe('vendor envelopes (#17)', () => {
  const STRIPE_LIKE: EnvelopeConfig = {
    kind: 'envelope',
    fields: { timestamp: 'created_at' },
    timestampFormat: 'unix',
  };
  const MS_NO_ID: EnvelopeConfig = { kind: 'envelope', timestampFormat: 'unix-ms', absent: ['id'] };
  const SPEC_PAYLOAD: EnvelopeConfig = { kind: 'envelope', absent: ['id'] };

  it('reads Unix seconds and milliseconds as ISO times', () => {
    const seconds = parseEnvelope(STRIPE_LIKE, {
      object: 'event',
      id: 'evt_1',
      type: 'invoice.paid',
      created_at: 1_700_000_000,
      data: {},
    });
    expect(seconds.timestamp).toBe('2023-11-14T22:13:20.000Z');
    const ms = parseEnvelope(MS_NO_ID, { data: 1, object: 'event', type: 't', timestamp: 1_700_000_000_123 });
    expect(ms).toEqual({ type: 't', timestamp: '2023-11-14T22:13:20.123Z', data: 1 });
    expect(
      errorOf(() => parseEnvelope(STRIPE_LIKE, { id: 'a', type: 't', created_at: '1', data: 1 })).details,
    ).toEqual({ pointer: '/created_at' });
    expect(errorOf(() => parseEnvelope(MS_NO_ID, { type: 't', timestamp: 'x', data: 1 })).code).toBe(
      'invalid_envelope',
    );
  });

  it('accepts the Standard Webhooks payload { type, timestamp, data } with no id field', () => {
    const parsed = parseEnvelope(SPEC_PAYLOAD, {
      type: 'user.created',
      timestamp: '2022-11-03T20:26:10.344522Z',
      data: {},
    });
    expect(parsed.id).toBeUndefined();
    expect(parsed.type).toBe('user.created');
  });

  it('never demands optional fields, but checks them when present', () => {
    const config: EnvelopeConfig = { kind: 'envelope', optional: ['id', 'timestamp'] };
    expect(parseEnvelope(config, { type: 't', data: null })).toEqual({ type: 't', data: null });
    expect(errorOf(() => parseEnvelope(config, { type: 't', id: 5, data: null })).details.pointer).toBe(
      '/id',
    );
    // Without `optional` the same body is refused.
    expect(errorOf(() => parseEnvelope(STANDARD, { type: 't', data: null })).details.pointer).toBe('/id');
  });

  it('writes the timestamp as the contract does and leaves absent fields out', () => {
    const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    expect(buildEnvelope(STRIPE_LIKE, { type: 't', data: 1, id: 'e', timestamp: at })).toEqual({
      id: 'e',
      type: 't',
      created_at: Math.floor(at / 1000),
      data: 1,
    });
    expect(buildEnvelope(MS_NO_ID, { type: 't', data: 1, id: 'e', timestamp: at })).toEqual({
      type: 't',
      timestamp: at,
      data: 1,
    });
    expect(buildEnvelope(MS_NO_ID, { type: 't', data: 1, timestamp: '2026-01-01T00:00:00Z' })).toMatchObject({
      timestamp: Date.UTC(2026, 0, 1),
    });
  });

  it('round-trips every timestamp format and absent/optional combination', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<'iso' | 'unix' | 'unix-ms'>('iso', 'unix', 'unix-ms'),
        fc.subarray<'id' | 'timestamp'>(['id', 'timestamp']),
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        fc.jsonValue(),
        (timestampFormat, absent, ms, data) => {
          const config: EnvelopeConfig = { kind: 'envelope', timestampFormat, absent };
          const body = JSON.parse(JSON.stringify(buildEnvelope(config, { type: 'x', data, timestamp: ms })));
          const parsed = parseEnvelope(config, body);
          expect(parsed.type).toBe('x');
          expect(Object.hasOwn(body, 'id')).toBe(!absent.includes('id'));
          if (absent.includes('timestamp')) expect(parsed.timestamp).toBeUndefined();
          else {
            const expected = timestampFormat === 'unix' ? Math.floor(ms / 1000) * 1000 : ms;
            expect(Date.parse(parsed.timestamp as string)).toBe(expected);
          }
        },
      ),
    );
  });

  it('refuses malformed absent/optional/timestampFormat settings', () => {
    const bad = [
      { kind: 'envelope', absent: ['data'] },
      { kind: 'envelope', optional: 'id' },
      { kind: 'envelope', timestampFormat: 'seconds' },
    ] as unknown as EnvelopeConfig[];
    for (const config of bad) expect(errorOf(() => envelopeFields(config)).code).toBe('invalid_config');
    // An absent field's name may be reused by another field.
    expect(envelopeFields({ kind: 'envelope', fields: { data: 'id' }, absent: ['id'] }).data).toBe('id');
  });
});
