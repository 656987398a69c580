/**
 * `envelopeReader(config)`: reads a contract's `{ id, type, timestamp, data }` envelope out of a
 * verified body. A receiver part (`envelope`), so the receivers of bare contracts (every provider
 * preset) carry no envelope code; the scheme parts include it, `presetParts` does not.
 */
import type { EnvelopeConfig } from '../contract.js';
import { type Envelope, type EnvelopeFieldNames, envelopeFields, readEnvelope } from '../envelope.js';

export interface EnvelopeReader {
  /** The field names the contract uses. */
  readonly names: EnvelopeFieldNames;
  /** The envelope of a JSON object body (`invalid_envelope` with a pointer for a wrong shape). */
  readonly read: (body: Record<string, unknown>) => Envelope;
}

export function envelopeReader(config: EnvelopeConfig): EnvelopeReader {
  const names = envelopeFields(config);
  return { names, read: (body) => readEnvelope(names, body) };
}
