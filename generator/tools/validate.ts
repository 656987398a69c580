/**
 * Validates payloads against a contract's JSON Schemas at runtime (send checks what it is about to
 * send, listen checks what it received). Uses Ajv (draft 2020-12, the model's vocabulary) over the
 * model's own schemas: one root document holds `schemas` and the event payloads, so the model-local
 * `#/schemas/<key>` refs resolve as written.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { GeneratorError } from '../errors.js';
import type { ContractModel } from '../model.js';

// ajv-formats is CommonJS with a `default` property; NodeNext types see the namespace object.
const addFormats = ((formatsModule as { default?: unknown }).default ?? formatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

export interface PayloadIssue {
  /** JSON pointer into the payload (`""` for the payload itself). */
  readonly pointer: string;
  readonly message: string;
}

export interface PayloadValidator {
  /** Issues of `payload` against `event`'s schema; empty when valid. */
  validate(event: string, payload: unknown): PayloadIssue[];
}

let sequence = 0;

export function createPayloadValidator(model: ContractModel): PayloadValidator {
  // strict: false — contracts carry OpenAPI keywords (discriminator, example, x-…) Ajv does not know.
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  sequence += 1;
  const base = `gen-webhooks:contract/${encodeURIComponent(model.name)}/${sequence}`;
  const schemas: Record<string, unknown> = {};
  for (const [key, sourced] of Object.entries(model.schemas)) schemas[key] = sourced.schema;
  const events = model.events.map((event) => event.payload.schema);
  ajv.addSchema({ $id: base, schemas, events });
  const compiled = new Map<string, ValidateFunction>();

  return {
    validate(eventName, payload) {
      const index = model.events.findIndex((event) => event.name === eventName);
      const event = model.events[index];
      if (!event) {
        throw new GeneratorError('invalid_argument', `unknown event ${JSON.stringify(eventName)}`, {
          file: model.file,
          expected: `one of ${model.events.map((e) => e.name).join(', ')}`,
        });
      }
      let validate = compiled.get(eventName);
      if (!validate) {
        try {
          validate = ajv.getSchema(`${base}#/events/${index}`);
        } catch (error) {
          throw new GeneratorError(
            'invalid_document',
            `cannot compile the schema of ${eventName}: ${(error as Error).message}`,
            {
              file: model.file,
              pointer: event.payload.source.split('#')[1],
              cause: error,
            },
          );
        }
        if (!validate)
          throw new GeneratorError('invalid_document', `no schema for ${eventName}`, { file: model.file });
        compiled.set(eventName, validate);
      }
      if (validate(payload)) return [];
      return dedupe((validate.errors ?? []).map(describeIssue));
    },
  };
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function describeIssue(error: ErrorObject): PayloadIssue {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return {
        pointer: `${error.instancePath}/${escapePointer(String(params.missingProperty))}`,
        message: 'is required',
      };
    case 'additionalProperties':
      return {
        pointer: `${error.instancePath}/${escapePointer(String(params.additionalProperty))}`,
        message: 'is not allowed (additionalProperties: false)',
      };
    case 'enum':
      return {
        pointer: error.instancePath,
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'const':
      return { pointer: error.instancePath, message: `must be ${JSON.stringify(params.allowedValue)}` };
    default:
      return { pointer: error.instancePath, message: error.message ?? `fails ${error.keyword}` };
  }
}

function dedupe(issues: PayloadIssue[]): PayloadIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.pointer}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** `/petId must be >= 1; /userId is required` (first few issues, for one-line output). */
export function formatIssues(issues: readonly PayloadIssue[], max = 3): string {
  const shown = issues.slice(0, max).map((i) => `${i.pointer || '(payload)'} ${i.message}`);
  const more = issues.length > max ? `; and ${issues.length - max} more` : '';
  return `${shown.join('; ')}${more}`;
}
