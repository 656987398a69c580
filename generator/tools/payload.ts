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
    if (validator.validate(event.name, example).length === 0)
      return { value: example, source: `example ${index + 1}` };
  }
  const synthesised = synthesize(event.payload.schema, modelResolver(model.schemas));
  const issues = validator.validate(event.name, synthesised.value);
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
  return { value: synthesised.value, source: 'synthesised from the schema' };
}
