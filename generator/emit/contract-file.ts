/**
 * contract.ts: the runtime descriptor (`Contract<Events>` from runtime/contract.ts) serialised from
 * the model. Data only; all behaviour lives in the runtime.
 */
import type { ContractModel } from '../model.js';
import { payloadFields, schemaGroups } from './contract-fields.js';
import { commentText, key, literal, quote } from './literal.js';
import type { ModuleNames } from './names.js';

/** A one-line summary for the descriptor: the first line, at most 160 characters (specs put essays here). */
function shortSummary(text: string | undefined): string | undefined {
  const line = text?.trim().split(/\r?\n/)[0]?.trim();
  if (!line) return undefined;
  return line.length <= 160 ? line : `${line.slice(0, 159).trimEnd()}…`;
}

export function emitContractFile(
  model: ContractModel,
  names: ModuleNames,
  header: string,
  runtime: string,
): string {
  const bySchema = new Set(schemaGroups(model).flatMap((group) => group.map((e) => e.name)));
  const events = names.events.map(({ event }) => {
    const fields: string[] = [`schema: eventValidators[${quote(event.name)}]`];
    if (event.match !== undefined) fields.push(`match: ${literal(event.match, '    ')}`);
    if (bySchema.has(event.name)) fields.push(`fields: ${literal(payloadFields(model, event), '    ')}`);
    if (event.deprecated === true) fields.push('deprecated: true');
    const summary = shortSummary(event.summary);
    if (summary !== undefined) fields.push(`summary: ${quote(summary)}`);
    const flat = `    ${key(event.name)}: { ${fields.join(', ')} },\n`;
    if (flat.length <= 111) return flat;
    return `    ${key(event.name)}: {\n${fields.map((f) => `      ${f},\n`).join('')}    },\n`;
  });
  const lines = [
    header,
    `import type { Contract } from ${quote(runtime)};\n`,
    "import type { Events } from './types.js';\n",
    "import { eventValidators } from './validators.js';\n",
    '\n',
    `/** ${commentText(model.title)}: what the runtime needs to send and receive these events. */\n`,
    'export const contract: Contract<Events> = {\n',
    `  name: ${quote(model.name)},\n`,
    model.version ? `  version: ${quote(model.version)},\n` : '',
    events.length > 0 ? `  events: {\n${events.join('')}  },\n` : '  events: {},\n',
    `  signature: ${literal(model.signature, '  ')},\n`,
    `  envelope: ${literal(model.envelope, '  ')},\n`,
    `  selector: ${literal(model.selector, '  ')},\n`,
    model.retry !== undefined ? `  retry: ${literal(model.retry, '  ')},\n` : '',
    model.bodies !== undefined ? `  bodies: ${literal(model.bodies, '  ')},\n` : '',
    model.handshakes !== undefined ? `  handshakes: ${literal(model.handshakes, '  ')},\n` : '',
    '};\n',
  ];
  return lines.join('');
}
