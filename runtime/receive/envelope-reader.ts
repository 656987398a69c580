/**
 * `envelopeReader(config)`: reads a contract's `{ id, type, timestamp, data }` envelope out of a
 * verified body. A receiver part (`envelope`), so the receivers of bare contracts (every provider
 * preset) carry no envelope code; the scheme parts include it, `presetParts` does not.
 */
import type { EnvelopeConfig } from '../contract.js';
import {
  checkedEnvelopeFields,
  type Envelope,
  type EnvelopeFieldNames,
  envelopeFields,
  readEnvelope,
} from '../envelope.js';
import { WebhookError } from '../errors.js';
import { isRecord } from './body-path.js';

export interface EnvelopeReader {
  /** The field names the contract uses. */
  readonly names: EnvelopeFieldNames;
  /**
   * The envelope of a decoded body (`invalid_envelope` with a pointer for a wrong shape, or for a
   * body that is not a JSON object).
   */
  readonly read: (body: unknown) => Envelope;
}

const readerOf = (names: EnvelopeFieldNames): EnvelopeReader => ({
  names,
  read: (body) => {
    // parseEnvelope also accepts JSON text; a body that is a JSON string must not be parsed twice.
    if (!isRecord(body)) {
      throw new WebhookError('invalid_envelope', 'The body must be a JSON object (an event envelope)', {
        details: { pointer: '' },
      });
    }
    return readEnvelope(names, body);
  },
});

/** `invalid_config` for an envelope config that makes no sense (the runtime's `createReceiver`). */
export function envelopeReader(config: EnvelopeConfig): EnvelopeReader {
  return readerOf(envelopeFields(config));
}

/**
 * The reader of an envelope config that is not checked again: the scheme parts', for generated
 * contracts (the generator checked theirs).
 */
export function checkedEnvelopeReader(config: EnvelopeConfig): EnvelopeReader {
  return readerOf(checkedEnvelopeFields(config as Extract<EnvelopeConfig, { kind: 'envelope' }>));
}
