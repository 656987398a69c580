/**
 * Shared by the agreement and policy tests: generate a contract's module with `generate()` into a
 * temp dir and import its `schemas.js`; compile the same model's JSON Schemas with ajv (draft 2020-12
 * + ajv-formats, strict: false) with `#/schemas/<key>` refs registered. Test-only.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Ajv2020Module, { type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { z } from 'zod';
import { generate } from '../../generator/index.js';
import type { ContractModel, EventModel } from '../../generator/model.js';

// CJS interop: under NodeNext the default export may be the module namespace.
const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const addFormats = addFormatsModule.default ?? addFormatsModule;

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface GeneratedSchemas {
  readonly model: ContractModel;
  readonly folder: string;
  readonly eventSchemas: Readonly<Record<string, z.ZodType>>;
}

/** A fresh temp dir under test/.tmp (inside the repo so emitted modules resolve `zod`). */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const root = path.join(repoRoot, 'test/.tmp');
  mkdirSync(root, { recursive: true });
  const dir = mkdtempSync(path.join(root, prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Generates `input` into `out` and imports the emitted zod schemas. */
export async function generateSchemas(input: string, out: string): Promise<GeneratedSchemas> {
  const result = await generate({ inputs: [input], out, cwd: repoRoot });
  const contract = result.contracts[0];
  if (!contract) throw new Error(`no contract generated from ${input}`);
  const folder = path.join(out, contract.name);
  const mod = (await import(pathToFileURL(path.join(folder, 'schemas.js')).href)) as {
    eventSchemas: Record<string, z.ZodType>;
  };
  return { model: contract.model, folder, eventSchemas: mod.eventSchemas };
}

export interface AjvVerdict {
  readonly valid: boolean;
  readonly errors: readonly ErrorObject[];
}

/** ajv validators for every event payload of a model. */
export function ajvForModel(model: ContractModel): (event: string) => (value: unknown) => AjvVerdict {
  const ajv = new Ajv2020({ strict: false, allErrors: false, inlineRefs: false });
  addFormats(ajv);
  const schemas: Record<string, unknown> = {};
  for (const [key, sourced] of Object.entries(model.schemas)) schemas[key] = sourced.schema;
  const events: Record<string, unknown> = {};
  for (const event of model.events) events[event.name] = event.payload.schema;
  const id = `https://gen-webhooks.test/${encodeURIComponent(model.name)}`;
  ajv.addSchema({ $id: id, schemas, events });
  return (event) => {
    const validate = ajv.getSchema(`${id}#/events/${event.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    if (!validate) throw new Error(`ajv could not compile ${event}`);
    return (value) => {
      const valid = validate(value) === true;
      return { valid, errors: valid ? [] : [...(validate.errors ?? [])] };
    };
  };
}

/**
 * The event a GitHub delivery routes to, the way the runtime's header selector does: same
 * `X-GitHub-Event` and, when the event declares one, the same body `action`.
 */
export function githubEventFor(
  events: readonly EventModel[],
  header: string,
  action: unknown,
): EventModel | undefined {
  const candidates = events.filter((e) => e.match?.header === header);
  return (
    candidates.find((e) => e.match?.body !== undefined && e.match.body === action) ??
    candidates.find((e) => e.match?.body === undefined)
  );
}
