/**
 * types.ts: plain interfaces/types for every named schema and inline event payload, plus the event
 * map `Events` (event name → payload type) and `EventName` — and, for an AsyncAPI document with both
 * directions, `ClientMessages` / `ClientMessageName` (what clients send the application). These are
 * the public types; zod only validates against them.
 */
import type { ContractModel } from '../model.js';
import { renderTypeDeclaration, type SchemaContext } from '../schema/index.js';
import { commentText, docComment, quote } from './literal.js';
import { compareStrings, type EventNames, type ModuleNames } from './names.js';

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
  for (const { event, type, inline } of [...names.events, ...names.received]) {
    if (inline) blocks.push(renderTypeDeclaration(type, event.payload, ctx));
  }
  const entry = ({ event, type }: EventNames) => {
    const doc = docComment(event.summary ?? event.description, '  ', event.deprecated ? ['@deprecated'] : []);
    return `${doc}  ${quote(event.name)}: ${type};\n`;
  };
  const entries = names.events.map(entry);
  blocks.push(
    // A type alias, not an interface: only aliases get the implicit index signature that the
    // runtime's `EventMapBase` constraint (`{ [event: string]: unknown }`) needs.
    `/** Event name → payload type of every event in ${commentText(model.title)}. */\nexport type Events = {${
      entries.length > 0 ? `\n${entries.join('')}` : ''
    }};`,
  );
  blocks.push('export type EventName = keyof Events;');
  if (model.received !== undefined) {
    const messages = names.received.map(entry);
    blocks.push(
      `/**\n * Message name → type of every message ${commentText(model.title)} receives from its clients (AsyncAPI\n * \`receive\` operations, 2.x \`publish\`): the other direction. Not webhook events — the receiver rejects\n * them and the sender does not send them.\n */\nexport type ClientMessages = {${
        messages.length > 0 ? `\n${messages.join('')}` : ''
      }};`,
    );
    blocks.push('export type ClientMessageName = keyof ClientMessages;');
  }
  return `${header}\n${blocks.join('\n\n')}\n`;
}
