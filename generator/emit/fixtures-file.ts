/**
 * fixtures.ts: one valid payload per event: the first spec example that validates against the
 * payload schema, else a value synthesised from the schema (deterministic). An invalid example is
 * reported as a diagnostic rather than shipped as a fixture.
 */
import type { Diagnostic } from '../errors.js';
import type { ContractModel, EventModel } from '../model.js';
import { modelResolver, validates } from './fixtures/check.js';
import { synthesize } from './fixtures/synthesize.js';
import { key, literal, quote } from './literal.js';

export interface Fixture {
  readonly value: unknown;
  readonly from: 'example' | 'synthesised';
  /** False when no value satisfying the schema was found (an unsatisfiable schema). */
  readonly valid: boolean;
}

function splitSource(source: string): { file?: string; pointer?: string } {
  const hash = source.indexOf('#');
  if (hash < 0) return source ? { file: source } : {};
  return { file: source.slice(0, hash), pointer: source.slice(hash + 1) };
}

export function pickFixture(model: ContractModel, event: EventModel, diagnostics: Diagnostic[]): Fixture {
  const resolve = modelResolver(model.schemas);
  const schema = event.payload.schema;
  for (const example of event.examples) {
    // oneOf counts as the generated validator counts it (any branch), see synthesize().
    if (example !== undefined && validates(schema, example, resolve, 0, true)) {
      return { value: example, from: 'example', valid: true };
    }
  }
  const where = splitSource(event.source);
  if (event.examples.length > 0) {
    diagnostics.push({
      level: 'warning',
      code: 'invalid_example',
      message: `event '${event.name}': no example is valid against its payload schema; the fixture is synthesised`,
      ...where,
    });
  }
  const result = synthesize(schema, resolve);
  if (!result.valid) {
    diagnostics.push({
      level: 'warning',
      code: 'fixture_not_valid',
      message: `event '${event.name}': could not synthesise a payload that satisfies its schema`,
      ...where,
    });
  }
  return { value: result.value, from: 'synthesised', valid: result.valid };
}

export function emitFixturesFile(model: ContractModel, header: string, diagnostics: Diagnostic[]): string {
  const entries = model.events.map((event) => {
    const fixture = pickFixture(model, event, diagnostics);
    const text = literal(fixture.value, '  ');
    if (fixture.valid) return `  ${key(event.name)}: ${text},\n`;
    // Nothing satisfies this payload schema (reported as a diagnostic); keep the file compiling.
    return `  // No valid payload exists for this schema; this best effort does not validate.\n  ${key(
      event.name,
    )}: ${text} as unknown as Events[${quote(event.name)}],\n`;
  });
  return [
    header,
    "import type { EventName, Events } from './types.js';\n",
    '\n',
    "/** One valid payload per event (from the contract's examples, or synthesised from the schema). */\n",
    `export const fixtures: { [K in EventName]: Events[K] } = {${entries.length > 0 ? `\n${entries.join('')}` : ''}};\n`,
  ].join('');
}
