/**
 * schemas.ts: one zod v4 schema per named schema and inline payload, each annotated with its
 * interface (`z.ZodType<Pet>`), declared in dependency order, plus `eventSchemas` keyed by event.
 * With `zod: 'mini'` the same schemas in zod/mini's functional form (`z.ZodMiniType<Pet>`).
 * Given a CheckModule, it also declares each schema's predicate there (validators-file.ts).
 */
import type { ContractModel } from '../model.js';
import type { CheckModule } from '../schema/check.js';
import { renderZodDeclaration, validatedNode } from '../schema/index.js';
import { ZOD_HELPERS, zodHelperSource } from '../schema/own-keys.js';
import { renderZodMiniDeclaration } from '../schema/zod-mini.js';
import { key, quote } from './literal.js';
import { compareStrings, type ModuleNames } from './names.js';
import { declarationOrder, type ModuleSchemaContext } from './schema-context.js';
import { shareLeaves } from './shared-leaves.js';

/** `classic`: `import { z } from 'zod'`; `mini`: `zod/mini` (smaller bundles, same validation). */
export type ZodFlavor = 'classic' | 'mini';

// A namespace import: bundlers drop what `z.…` never names; `{ z }` (a namespace re-exported as a
// binding) kept all of zod, its 40 locales and JSON Schema conversion (417 KB minified for Petstore).
const MINI_IMPORT = "import * as z from 'zod/mini';";

export function emitSchemasFile(
  model: ContractModel,
  names: ModuleNames,
  ctx: ModuleSchemaContext,
  header: string,
  runtime: string,
  zod: ZodFlavor = 'classic',
  checks?: CheckModule,
): string {
  const declare = zod === 'mini' ? renderZodMiniDeclaration : renderZodDeclaration;
  const blocks: string[] = [];
  const typeImports = new Set<string>(['EventName', 'Events']);
  for (const key of declarationOrder(model)) {
    const schema = model.schemas[key];
    const name = names.schemas.get(key);
    const type = names.types.get(key);
    if (!schema || !name || !type) continue;
    typeImports.add(type);
    blocks.push(declare(name, type, schema, ctx));
    checks?.declare(name, validatedNode(schema, ctx));
    ctx.declare(key);
  }
  // Client messages get no fast path: only the events' schemas are validated on receipt.
  const eventSchemaNames = new Set(names.events.map((e) => e.schema));
  for (const { event, type, schema, inline } of [...names.events, ...names.received]) {
    if (!inline) continue;
    typeImports.add(type);
    blocks.push(declare(schema, type, event.payload, ctx));
    if (eventSchemaNames.has(schema)) checks?.declare(schema, validatedNode(event.payload, ctx));
  }
  const entries = names.events.map(({ event, schema }) => `  ${key(event.name)}: ${schema},\n`);
  blocks.push(
    // Typed as the runtime's StandardSchemaV1 only: contract.ts hands these to `Contract<Events>` by
    // identity. Adding `& z.ZodType<Events[K]>` made every consumer's tsc instantiate zod's types per
    // event (~20% of a GitHub receiver consumer's time); the named consts keep the zod API.
    `/** The payload schema of every event (Standard Schema; the named \`…Schema\` consts are zod). */\nexport const eventSchemas: {\n  readonly [K in EventName]: StandardSchemaV1<unknown, Events[K]>;\n} = {${
      entries.length > 0 ? `\n${entries.join('')}` : ''
    }};`,
  );
  if (model.received !== undefined) {
    typeImports.add('ClientMessageName');
    typeImports.add('ClientMessages');
    const messages = names.received.map(({ event, schema }) => `  ${key(event.name)}: ${schema},\n`);
    blocks.push(
      `/** The schema of every message clients send the application (not webhook events; see \`ClientMessages\`). */\nexport const clientMessageSchemas: {\n  readonly [K in ClientMessageName]: StandardSchemaV1<unknown, ClientMessages[K]>;\n} = {${
        messages.length > 0 ? `\n${messages.join('')}` : ''
      }};`,
    );
  }
  const helpers = ZOD_HELPERS.filter((helper) => ctx.helpers.has(helper)).map(zodHelperSource);
  if (helpers.length > 0) blocks.unshift(...helpers);
  const imports = [...typeImports].sort(compareStrings);
  const importLine =
    imports.length <= 4
      ? `import type { ${imports.join(', ')} } from './types.js';\n`
      : `import type {\n${imports.map((n) => `  ${n},\n`).join('')}} from './types.js';\n`;
  const { body, declarations } = shareLeaves(blocks.join('\n\n'), zod);
  const zodImport = zod === 'mini' ? MINI_IMPORT : "import { z } from 'zod';";
  return `${header}import type { StandardSchemaV1 } from ${quote(runtime)};\n${zodImport}\n${importLine}\n${
    declarations === '' ? '' : `${declarations}\n`
  }${body}\n`;
}
