/**
 * validators.js + validators.d.ts: `eventValidators`, each event's zod schema behind the predicate
 * schema/check.ts makes of it. A payload the predicate accepts is valid as it is and is answered
 * uncopied; zod decides every other one and words its issues. Plain JavaScript beside a one-line
 * declaration, because a consumer's tsc parses every .ts file it reaches (schemas.ts is already
 * `@ts-nocheck`, but parsed): GitHub's predicates are 0.5 MB that no type depends on, and as a .ts
 * file they cost a receiver consumer's tsc about a fifth of its time. A project that builds with tsc
 * gets them as validators.ts instead, since tsc copies no .js source (see module-form.ts).
 */

import { type CheckModule, checkName } from '../schema/check.js';
import { JS_NOCHECK_LINE } from './header.js';
import { key, quote } from './literal.js';
import { compareStrings, type ModuleNames } from './names.js';
import type { ZodFlavor } from './schemas-file.js';

const FAST_SOURCE = `/** The event schema with a fast path; the zod API stays (the schema is the prototype). */
function fast(schema, check) {
  const standard = {
    version: 1,
    vendor: 'zod',
    validate: (value) => (check(value) ? { value } : schema['~standard'].validate(value)),
  };
  return Object.create(schema, { '~standard': { value: standard } });
}`;

export function emitValidatorFiles(
  names: ModuleNames,
  checks: CheckModule,
  header: string,
  runtime: string,
  zod: ZodFlavor,
): string {
  const schemas = [...new Set(names.events.map((e) => e.schema))].sort(compareStrings);
  const entries = names.events.map(
    ({ event, schema }) => `  ${key(event.name)}: fast(${schema}, ${checkName(schema)}),\n`,
  );
  const imports = [
    checks.usesZod
      ? zod === 'mini'
        ? "import * as z from 'zod/mini';\n"
        : "import { z } from 'zod';\n"
      : '',
    schemas.length === 0
      ? ''
      : `import {\n${schemas.map((s) => `  ${s},\n`).join('')}} from './schemas.js';\n`,
  ].join('');
  const predicates = checks.source();
  const body = `${predicates === '' ? '' : `${predicates}\n`}${entries.length > 0 ? `${FAST_SOURCE}\n\n` : ''}`;
  const typeImports = `import type { StandardSchemaV1 } from ${quote(runtime)};\nimport type { EventName, Events } from './types.js';\n`;
  // The .ts form; its JavaScript form (validators.js + validators.d.ts) is js-form.ts's.
  return `${header}${JS_NOCHECK_LINE}${typeImports}${imports}\n${body}/**
 * The payload schema of every event (Standard Schema): the zod schemas of schemas.ts, answering a
 * payload their compiled predicate accepts without zod's copy.
 */
export const eventValidators: {
  readonly [K in EventName]: StandardSchemaV1<unknown, Events[K]>;
} = {${entries.length > 0 ? `\n${entries.join('')}` : ''}};
`;
}
