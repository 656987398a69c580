/**
 * fixtures.ts: one valid payload per event: the first spec example that validates against the
 * payload schema, else a value synthesised from the schema (deterministic). An invalid example is
 * reported as a diagnostic rather than shipped as a fixture.
 */
import type { Diagnostic } from '../errors.js';
import type { ContractModel, EventModel } from '../model.js';
import { payloadFields, schemaGroups } from './contract-fields.js';
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

/** The body field a receiver selects by inside the payload, when it does (bare contracts). */
function selectorField(model: ContractModel): string | undefined {
  if (model.envelope.kind !== 'bare') return undefined;
  const { selector } = model;
  return selector.kind === 'body'
    ? selector.field
    : selector.kind === 'header'
      ? selector.bodyField
      : undefined;
}

function expectedValue(model: ContractModel, event: EventModel): string | undefined {
  if (model.selector.kind === 'header') return event.match?.body;
  return event.match?.body ?? event.name;
}

function fieldOf(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function withField(value: unknown, path: string, field: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  const own = value as Record<string, unknown>;
  const next = rest.length === 0 ? field : withField(own[head] ?? {}, rest.join('.'), field);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(own))
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(out, head, { value: next, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * A fixture the generated (zod) validator accepts while JSON Schema does not: it matches several
 * `oneOf` branches (`{}` against branches that all allow it). Shipped, since no better value was
 * found, but said: a strict JSON Schema validator elsewhere would reject it.
 */
function warnLenient(
  model: ContractModel,
  event: EventModel,
  value: unknown,
  what: string,
  diagnostics: Diagnostic[],
): void {
  if (validates(event.payload.schema, value, modelResolver(model.schemas))) return;
  diagnostics.push({
    level: 'warning',
    code: 'fixture_oneof_ambiguous',
    message: `event '${event.name}': the ${what} matches several oneOf branches; JSON Schema rejects it, the generated zod union accepts it`,
    ...splitSource(event.source),
  });
}

export function pickFixture(model: ContractModel, event: EventModel, diagnostics: Diagnostic[]): Fixture {
  const resolve = modelResolver(model.schemas);
  const schema = event.payload.schema;
  // Where the receiver reads the event from inside the payload, the fixture must carry this event's
  // value there: an example written for another event (or with the wrong type) is not its fixture.
  const field = selectorField(model);
  const expected = field === undefined ? undefined : expectedValue(model, event);
  const selects = (value: unknown) =>
    field === undefined || expected === undefined || fieldOf(value, field) === expected;
  for (const example of event.examples) {
    // oneOf counts as the generated validator counts it (any branch), see synthesize().
    if (example !== undefined && selects(example) && validates(schema, example, resolve, 0, true)) {
      warnLenient(model, event, example, 'example', diagnostics);
      return { value: example, from: 'example', valid: true };
    }
  }
  const where = splitSource(event.source);
  if (event.examples.length > 0) {
    diagnostics.push({
      level: 'warning',
      code: 'invalid_example',
      message: `event '${event.name}': no example is valid against its payload schema${field === undefined ? '' : ` and carries its ${field} value`}; the fixture is synthesised`,
      ...where,
    });
  }
  const result = synthesize(schema, resolve, {
    allProperties: schemaGroups(model).some((group) => group.includes(event)),
  });
  let value = result.value;
  if (field !== undefined && expected !== undefined && !selects(value)) {
    const set = withField(value, field, expected);
    if (validates(schema, set, resolve, 0, true)) value = set;
  }
  const valid = value === result.value ? result.valid : true;
  if (valid) warnLenient(model, event, value, 'synthesised payload', diagnostics);
  if (!valid) {
    diagnostics.push({
      level: 'warning',
      code: 'fixture_not_valid',
      message: `event '${event.name}': could not synthesise a payload that satisfies its schema`,
      ...where,
    });
  }
  return { value, from: 'synthesised', valid };
}

/**
 * Receivers that select by schema take a payload for the event whose schema accepts it, the one
 * declaring most of its fields among several: an event whose own fixture would go elsewhere cannot
 * be told apart by its schema, which the contract should know before a delivery vanishes.
 */
function warnIndistinguishable(
  model: ContractModel,
  fixtures: ReadonlyMap<string, Fixture>,
  diagnostics: Diagnostic[],
): void {
  const resolve = modelResolver(model.schemas);
  for (const group of schemaGroups(model)) {
    const fields = new Map(group.map((e) => [e.name, new Set(payloadFields(model, e))]));
    for (const event of group) {
      const fixture = fixtures.get(event.name);
      if (fixture === undefined || !fixture.valid) continue;
      const value = fixture.value;
      let accepted = group.filter((e) => validates(e.payload.schema, value, resolve, 0, true));
      const keys =
        typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : [];
      const score = (e: EventModel) => keys.filter((k) => fields.get(e.name)?.has(k)).length;
      const best = Math.max(0, ...accepted.map(score));
      if (accepted.length > 1) accepted = accepted.filter((e) => score(e) === best);
      if (accepted.length === 1 && accepted[0]?.name === event.name) continue;
      const others = accepted.filter((e) => e.name !== event.name).map((e) => `'${e.name}'`);
      diagnostics.push({
        level: 'warning',
        code: 'indistinguishable_events',
        message: `event '${event.name}': its payload also fits ${others.join(', ') || 'no schema better than another'}, and receivers of ${model.file} tell these events apart by schema; declare the field that names the event (\`x-gen-webhooks: { selector: { kind: body, field: <name> } }\` at the root, \`match: { body: <value> }\` per event) or a header selector`,
        ...splitSource(event.source),
      });
    }
  }
}

export function emitFixturesFile(model: ContractModel, header: string, diagnostics: Diagnostic[]): string {
  const fixtures = new Map(model.events.map((event) => [event.name, pickFixture(model, event, diagnostics)]));
  warnIndistinguishable(model, fixtures, diagnostics);
  const entries = model.events.map((event) => {
    const fixture = fixtures.get(event.name) as Fixture;
    const text = literal(fixture.value, '  ');
    if (fixture.valid) return `  ${key(event.name)}: ${text},\n`;
    // Nothing satisfies this payload schema (reported as a diagnostic); keep the file compiling.
    return `  // No valid payload exists for this schema; this best effort does not validate.\n  ${key(
      event.name,
    )}: ${text} as unknown as Events[${quote(event.name)}],\n`;
  });
  return [
    header,
    model.received === undefined
      ? "import type { EventName, Events } from './types.js';\n"
      : "import type { ClientMessageName, ClientMessages, EventName, Events } from './types.js';\n",
    '\n',
    "/** One valid payload per event (from the contract's examples, or synthesised from the schema). */\n",
    `export const fixtures: { [K in EventName]: Events[K] } = {${entries.length > 0 ? `\n${entries.join('')}` : ''}};\n`,
    ...(model.received === undefined ? [] : ['\n', clientMessageFixtures(model, diagnostics)]),
  ].join('');
}

/** One valid message per `ClientMessages` entry; no selector reads these, so none is imposed. */
function clientMessageFixtures(model: ContractModel, diagnostics: Diagnostic[]): string {
  const plain: ContractModel = { ...model, selector: { kind: 'schema' } };
  const entries = (model.received ?? []).map((message) => {
    const fixture = pickFixture(plain, message, diagnostics);
    const text = literal(fixture.value, '  ');
    if (fixture.valid) return `  ${key(message.name)}: ${text},\n`;
    return `  // No valid message exists for this schema; this best effort does not validate.\n  ${key(
      message.name,
    )}: ${text} as unknown as ClientMessages[${quote(message.name)}],\n`;
  });
  return [
    '/** One valid message per client message (the other direction; see `ClientMessages`). */\n',
    `export const clientMessageFixtures: { [K in ClientMessageName]: ClientMessages[K] } = {${
      entries.length > 0 ? `\n${entries.join('')}` : ''
    }};\n`,
  ].join('');
}
