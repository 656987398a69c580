import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EnvelopeConfig } from './contract.js';
import { buildEnvelope, envelopeFields, parseEnvelope } from './envelope.js';
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
    for (const [input, pointer] of cases) {
      const error = errorOf(() => parseEnvelope(PETSTORE, input));
      expect(error.code).toBe('invalid_envelope');
      expect(error.details.pointer).toBe(pointer);
    }
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
