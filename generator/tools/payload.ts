/**
 * The payload a tool sends: `--data file.json`, else the first of the contract's examples that is
 * valid, else one synthesised from the schema (the same synthesis the generated fixtures use).
 * Whatever the source, it is validated against the contract before anything is sent.
 */
import { readFileSync } from 'node:fs';
import { modelResolver } from '../emit/fixtures/check.js';
import { synthesize } from '../emit/fixtures/synthesize.js';
import { GeneratorError } from '../errors.js';
import type { ContractModel, EventModel } from '../model.js';
import { formatIssues, type PayloadValidator } from './validate.js';

export interface ChosenPayload {
  readonly value: unknown;
  /** `file <path>`, `example 1` or `synthesised from the schema`. */
  readonly source: string;
}

function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new GeneratorError('file_not_found', `cannot read --data file: ${(error as Error).message}`, {
      file,
      cause: error,
    });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new GeneratorError('invalid_json', `--data is not JSON: ${(error as Error).message}`, {
      file,
      cause: error,
    });
  }
}

export function choosePayload(
  command: string,
  model: ContractModel,
  event: EventModel,
  validator: PayloadValidator,
  dataFile: string | undefined,
): ChosenPayload {
  if (dataFile !== undefined) {
    const value = readJsonFile(dataFile);
    const issues = validator.validate(event.name, value);
    const first = issues[0];
    if (first) {
      throw new GeneratorError(
        'invalid_argument',
        `${command}: the payload does not match ${event.name}: ${formatIssues(issues)}`,
        {
          file: dataFile,
          pointer: first.pointer,
          expected: `a payload valid against ${event.payload.source}`,
        },
      );
    }
    return { value, source: `file ${dataFile}` };
  }
  for (const [index, example] of event.examples.entries()) {
    const value = withSelectorValue(model, event, example);
    if (validator.validate(event.name, value).length === 0) return { value, source: `example ${index + 1}` };
  }
  const synthesised = withSelectorValue(
    model,
    event,
    synthesize(event.payload.schema, modelResolver(model.schemas)).value,
  );
  const issues = validator.validate(event.name, synthesised);
  const first = issues[0];
  if (first) {
    throw new GeneratorError(
      'invalid_argument',
      `${command}: ${event.name} has no valid example and no valid payload could be synthesised (${formatIssues(issues)})`,
      {
        file: model.file,
        pointer: event.payload.source.split('#')[1],
        expected: 'a payload given with --data file.json',
      },
    );
  }
  return { value: synthesised, source: 'synthesised from the schema' };
}

/**
 * Where the selector reads the event from inside the payload, when it does: the body field of a
 * `body`/`header` selector on a bare contract (`action` for GitHub-style contracts), or a path under
 * the envelope's data field.
 */
function selectorPathInPayload(model: ContractModel): string[] | undefined {
  const { selector, envelope } = model;
  const field =
    selector.kind === 'body' ? selector.field : selector.kind === 'header' ? selector.bodyField : undefined;
  if (field === undefined) return undefined;
  if (envelope.kind === 'bare') return field.split('.');
  const data = envelope.fields?.data ?? 'data';
  return field.startsWith(`${data}.`) ? field.slice(data.length + 1).split('.') : undefined;
}

/**
 * A synthesised payload (or an example written for several events) carries the selector value of
 * THIS event, so receivers route it here: e.g. `action: "closed"` for `issue.closed`. `--data` files
 * are never changed; a wrong value there is reported instead.
 */
function withSelectorValue(model: ContractModel, event: EventModel, payload: unknown): unknown {
  const path = selectorPathInPayload(model);
  const expected = event.match?.body ?? (model.selector.kind === 'body' ? event.name : undefined);
  if (
    !path ||
    expected === undefined ||
    typeof payload !== 'object' ||
    payload === null ||
    Array.isArray(payload)
  ) {
    return payload;
  }
  const copy = structuredClone(payload) as Record<string, unknown>;
  let cursor = copy;
  for (const key of path.slice(0, -1)) {
    const next = cursor[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) cursor[key] = {};
    cursor = cursor[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1];
  if (last !== undefined) cursor[last] = expected;
  return copy;
}
