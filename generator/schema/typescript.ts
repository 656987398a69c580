/**
 * Intermediate form → TypeScript type text. Object types list properties in schema order, one per
 * line with their JSDoc; named object schemas become interfaces (cheapest for tsc, and they reference
 * themselves naturally, so recursive schemas need nothing special).
 */
import { propertyKey, stringLiteral } from './escape.js';
import type { Literal, Node, PropertyNode } from './ir.js';
import { renderDoc } from './jsdoc.js';
import { TS_OBJECT_MEMBERS } from './own-keys.js';

export interface TypeNames {
  typeName(key: string): string;
}

const STEP = '  ';
const MAX_LINE = 100;

export function literalText(value: Literal): string {
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'number') return Object.is(value, -0) ? '0' : String(value);
  return String(value);
}

/** Text of a type that binds looser than `[]` / `&` and so needs parentheses inside them. */
function needsParens(node: Node): boolean {
  return (
    node.kind === 'union' ||
    node.kind === 'intersection' ||
    (node.kind === 'literal' && node.values.length > 1)
  );
}

function wrap(node: Node, text: string): string {
  return needsParens(node) ? `(${text})` : text;
}

export function renderType(node: Node, names: TypeNames, indent = ''): string {
  switch (node.kind) {
    case 'unknown':
      return 'unknown';
    case 'never':
      return 'never';
    case 'ref':
      return names.typeName(node.key);
    case 'literal':
      return joinUnion(node.values.map(literalText), indent);
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'object':
      return `{${objectBody(node.properties, node.additional, names, indent)}}`;
    case 'array':
      return arrayType(node, names, indent);
    case 'union':
      return joinUnion(
        node.members.map((member) =>
          member.kind === 'intersection'
            ? `(${renderType(member, names, indent)})`
            : renderType(member, names, indent),
        ),
        indent,
      );
    case 'intersection':
      return node.members.map((member) => wrap(member, renderType(member, names, indent))).join(' & ');
  }
}

function joinUnion(parts: string[], indent: string): string {
  const single = parts.join(' | ');
  if (single.length <= MAX_LINE || parts.some((part) => part.includes('\n'))) return single;
  return parts.map((part) => `\n${indent}${STEP}| ${part}`).join('');
}

function arrayType(node: Extract<Node, { kind: 'array' }>, names: TypeNames, indent: string): string {
  if (node.prefix.length === 0) return `${wrap(node.items, renderType(node.items, names, indent))}[]`;
  const required = node.minItems ?? 0;
  const elements = node.prefix.map(
    (member, i) => `${renderType(member, names, indent)}${i >= required ? '?' : ''}`,
  );
  if (node.items.kind !== 'never')
    elements.push(`...${wrap(node.items, renderType(node.items, names, indent))}[]`);
  return `[${elements.join(', ')}]`;
}

/** Body lines of an object type / interface, including the surrounding newlines. */
export function objectBody(
  properties: readonly PropertyNode[],
  additional: 'allow' | 'deny' | Node,
  names: TypeNames,
  indent: string,
): string {
  const inner = indent + STEP;
  const lines: string[] = [];
  const valueTypes: string[] = [];
  for (const property of properties) {
    let type = renderType(property.node, names, inner);
    let value = wrap(property.node, type);
    // An absent optional `constructor` still reads as Object's (TS checks literals against it too).
    if (!property.required && TS_OBJECT_MEMBERS.has(property.name)) {
      type = `${value} | Object[${stringLiteral(property.name)}]`;
      value = `(${type})`;
    }
    valueTypes.push(value);
    lines.push(
      `${renderDoc(property.doc, inner)}${inner}${propertyKey(property.name)}${property.required ? '' : '?'}: ${type};`,
    );
  }
  if (typeof additional === 'object') {
    // Every declared property must fit the index signature, so it is widened by their types.
    // A multi-line member would make the signature unreadable; `unknown` is the sound fallback.
    const extra = renderType(additional, names, inner);
    const members = [wrap(additional, extra), ...valueTypes];
    if (properties.some((p) => !p.required)) members.push('undefined');
    const index = members.some((m) => m.includes('\n')) ? 'unknown' : [...new Set(members)].join(' | ');
    lines.push(`${inner}[key: string]: ${index};`);
  } else if (properties.length === 0) {
    lines.push(`${inner}[key: string]: ${additional === 'deny' ? 'never' : 'unknown'};`);
  }
  return `\n${lines.join('\n')}\n${indent}`;
}
