/**
 * types.ts: plain interfaces/types for every named schema and inline event payload, plus the event
 * map `Events` (event name → payload type) and `EventName`. These are the public types; zod only
 * validates against them.
 */
import type { ContractModel } from '../model.js';
import { renderTypeDeclaration, type SchemaContext } from '../schema/index.js';
import { commentText, docComment, quote } from './literal.js';
import { compareStrings, type ModuleNames } from './names.js';

export function emitTypesFile(
  model: ContractModel,
  names: ModuleNames,
  ctx: SchemaContext,
  header: string,
): string {
  const blocks: string[] = [];
  for (const key of Object.keys(model.schemas).sort(compareStrings)) {
    const schema = model.schemas[key];
    if (schema) blocks.push(renderTypeDeclaration(names.types.get(key) ?? key, schema, ctx));
  }
  for (const { event, type, inline } of names.events) {
    if (inline) blocks.push(renderTypeDeclaration(type, event.payload, ctx));
  }
  const entries = names.events.map(({ event, type }) => {
    const doc = docComment(event.summary ?? event.description, '  ', event.deprecated ? ['@deprecated'] : []);
    return `${doc}  ${quote(event.name)}: ${type};\n`;
  });
  blocks.push(
    // A type alias, not an interface: only aliases get the implicit index signature that the
    // runtime's `EventMapBase` constraint (`{ [event: string]: unknown }`) needs.
    `/** Event name → payload type of every event in ${commentText(model.title)}. */\nexport type Events = {${
      entries.length > 0 ? `\n${entries.join('')}` : ''
    }};`,
  );
  blocks.push('export type EventName = keyof Events;');
  return `${header}\n${blocks.join('\n\n')}\n`;
}
