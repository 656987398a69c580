/**
 * Intermediate form → plain JS predicates (`is_XSchema(value): boolean`), the receiver's fast path:
 * `eventValidators` (validators.js) answers a payload the predicate accepts with the payload itself, and hands every
 * other one to the zod schema, which decides and words the issues. So a predicate may be stricter
 * than zod (a payload it refuses costs one zod parse more) but never looser; what it cannot model
 * exactly (tuples, `Object.prototype`-named properties, fractional `multipleOf`, stateful regex
 * flags) it refuses. It never copies: zod's output is a copy of the input with the same values
 * (no transforms, see zod.ts) except that zod drops an own `__proto__` and makes every object a
 * plain one, so objects that carry one or have another prototype are refused too. Checked against zod and ajv by check-parity.test.ts.
 *
 * Every test is a one-argument function, shared by its text across the module, so each value is
 * read once and the text stays about the size of the zod schemas'.
 */
import { stringLiteral } from './escape.js';
import type { Node, PropertyNode } from './ir.js';
import { INHERITED_KEYS } from './own-keys.js';
import { num, SAFE, STEP, TIME_PATTERN } from './render-text.js';
import { literalText } from './typescript.js';
import { URI_PATTERN } from './zod.js';

/** Formats zod checks by code of its own: the predicate asks the zod leaf (built once per module). */
const ZOD_FORMATS: Readonly<Record<string, string>> = {
  'date-time': 'z.iso.datetime({ offset: true })',
  date: 'z.iso.date()',
  email: 'z.email({ pattern: z.regexes.rfc5322Email })',
  uuid: 'z.guid()',
  ipv4: 'z.ipv4()',
  ipv6: 'z.ipv6()',
  hostname: 'z.hostname()',
};

/** Prefix of every name this module declares (schema consts are PascalCase, so none start so). */
const PREFIX = 'is_';
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
/** A plain object (zod's output always is one) without an own `__proto__` (zod's never has one). */
const OBJECT =
  "typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype && !Object.hasOwn(v, '__proto__')";

export interface CheckNames {
  /** zod const name of a named schema key (its predicate is `is_` + that name). */
  schemaName(key: string): string;
}

export const checkName = (schemaName: string): string => `${PREFIX}${schemaName}`;

/** The predicates of one module, and the regexes, sets and format leaves they share. */
export class CheckModule {
  private readonly functions: string[] = [];
  /** Text → const name, for values and one-line predicates alike. */
  private readonly consts = new Map<string, string>();
  /** Body → function name, for object and array predicates. */
  private readonly bodies = new Map<string, string>();

  /** Whether a predicate asks a zod leaf (the module then imports zod). */
  usesZod = false;

  constructor(private readonly names: CheckNames) {}

  private readonly declared = new Set<string>();

  /** Declares `is_<schemaName>` for `node` (once: a message used both ways comes twice). */
  declare(schemaName: string, node: Node): void {
    if (this.declared.has(schemaName)) return;
    this.declared.add(schemaName);
    this.functions.push(`function ${checkName(schemaName)}(v) {\n${this.body(node)}}\n`);
  }

  source(): string {
    if (this.functions.length === 0) return '';
    const consts = [...this.consts].map(([text, name]) => `const ${name} = ${text};\n`).join('');
    return `// Fast-path predicates for eventValidators: true only for what the zod schema accepts as it is.\n${consts}${this.functions.join('\n')}`;
  }

  private shared(text: string): string {
    let name = this.consts.get(text);
    if (name === undefined) {
      name = `${PREFIX}$${this.consts.size}`;
      this.consts.set(text, name);
    }
    return name;
  }

  /** A shared predicate `(x) => test`. */
  private arrow(test: string): string {
    return this.shared(`(x) => ${test}`);
  }

  private body(node: Node): string {
    if (node.kind === 'object') return this.objectBody(node);
    if (node.kind === 'array') return this.arrayBody(node);
    return `${STEP}return ${this.predicate(node)}(v);\n`;
  }

  /** The name of a one-argument function that tests `node`. */
  predicate(node: Node): string {
    switch (node.kind) {
      case 'ref':
        return checkName(this.names.schemaName(node.key));
      case 'object':
      case 'array': {
        const body = this.body(node);
        let name = this.bodies.get(body);
        if (name === undefined) {
          name = `${PREFIX}$f${this.bodies.size}`;
          this.bodies.set(body, name);
          this.functions.push(`function ${name}(v) {\n${body}}\n`);
        }
        return name;
      }
      default:
        return this.arrow(this.test(node));
    }
  }

  /** A boolean expression over `x`. */
  private test(node: Node): string {
    switch (node.kind) {
      case 'unknown':
        // JSON has no undefined: a required key must be present.
        return 'x !== undefined';
      case 'never':
        return 'false';
      case 'literal':
        return node.values.map((v) => `x === ${literalText(v)}`).join(' || ');
      case 'boolean':
        return "typeof x === 'boolean'";
      case 'null':
        return 'x === null';
      case 'string':
        return this.stringTest(node);
      case 'number':
        return numberTest(node);
      case 'union':
        // Any member accepting is enough: a discriminated union's zod picks the member whose literal
        // the value carries, and that is the member that accepted it.
        return node.members.map((member) => `${this.predicate(member)}(x)`).join(' || ');
      case 'intersection':
        return node.members.map((member) => `${this.predicate(member)}(x)`).join(' && ');
      default:
        return `${this.predicate(node)}(x)`;
    }
  }

  private stringTest(node: Extract<Node, { kind: 'string' }>): string {
    const tests = ["typeof x === 'string'"];
    const format = node.format;
    if (format === 'uri') tests.push(`${this.shared(URI_PATTERN)}.test(x)`);
    else if (format === 'time') tests.push(`${this.shared(TIME_PATTERN)}.test(x)`);
    else if (format !== undefined) {
      const leaf = this.shared(ZOD_FORMATS[format] ?? 'z.string()');
      this.usesZod = true;
      const tester = this.shared(
        `(s) => {\n${STEP}const r = ${leaf}['~standard'].validate(s);\n${STEP}return !(r instanceof Promise) && r.issues === undefined;\n}`,
      );
      tests.push(`${tester}(x)`);
    }
    // Code points, as zod.ts counts them.
    if (node.minLength !== undefined) tests.push(`[...x].length >= ${node.minLength}`);
    if (node.maxLength !== undefined) tests.push(`[...x].length <= ${node.maxLength}`);
    if (node.pattern !== undefined) {
      // A global or sticky regex keeps state between calls (zod resets it; a shared const would not).
      if (/[gy]/.test(node.pattern.flags)) return 'false';
      const regex = `new RegExp(${stringLiteral(node.pattern.source)}, ${stringLiteral(node.pattern.flags)})`;
      tests.push(`${this.shared(regex)}.test(x)`);
    }
    return tests.join(' && ');
  }

  private objectBody(node: Extract<Node, { kind: 'object' }>): string {
    // zod reads these through the prototype or skips them (own-keys.ts): zod decides.
    if (node.properties.some((p) => INHERITED_KEYS.has(p.name))) return `${STEP}return false;\n`;
    const tests = [OBJECT, ...node.properties.map((p) => this.propertyTest(p))];
    const lines: string[] = [];
    if (node.additional === 'deny' || typeof node.additional === 'object') {
      const keys = this.shared(`new Set([${node.properties.map((p) => stringLiteral(p.name)).join(', ')}])`);
      const extra = node.additional === 'deny' ? 'false' : `${this.predicate(node.additional)}(v[k])`;
      lines.push(`${STEP}for (const k in v) if (!${keys}.has(k) && !${extra}) return false;`);
    }
    if (node.minProperties !== undefined) tests.push(`Object.keys(v).length >= ${node.minProperties}`);
    if (node.maxProperties !== undefined) tests.push(`Object.keys(v).length <= ${node.maxProperties}`);
    if (lines.length === 0)
      return `${STEP}return (\n${STEP}${STEP}${tests.join(` &&\n${STEP}${STEP}`)}\n${STEP});\n`;
    const [head, ...rest] = tests;
    return `${STEP}if (!(${head})) return false;\n${lines.join('\n')}\n${STEP}return ${rest.length === 0 ? 'true' : rest.join(` &&\n${STEP}${STEP}`)};\n`;
  }

  private propertyTest(property: PropertyNode): string {
    const read = IDENTIFIER.test(property.name) ? `v.${property.name}` : `v[${stringLiteral(property.name)}]`;
    const test = this.predicate(property.node);
    // A required key must pass (no test but `unknown`'s accepts undefined, and it wants a value); an
    // optional one may be absent.
    return `${property.required ? test : this.arrow(`x === undefined || ${test}(x)`)}(${read})`;
  }

  private arrayBody(node: Extract<Node, { kind: 'array' }>): string {
    // zod pads a short tuple's output with undefined: not the input, so zod decides.
    if (node.prefix.length > 0) return `${STEP}return false;\n`;
    const lines = [`${STEP}if (!Array.isArray(v)) return false;`];
    if (node.minItems !== undefined) lines.push(`${STEP}if (v.length < ${node.minItems}) return false;`);
    if (node.maxItems !== undefined) lines.push(`${STEP}if (v.length > ${node.maxItems}) return false;`);
    const test = this.predicate(node.items);
    lines.push(`${STEP}for (let i = 0; i < v.length; i++) if (!${test}(v[i])) return false;`);
    if (node.unique)
      lines.push(`${STEP}if (new Set(v.map((e) => JSON.stringify(e))).size !== v.length) return false;`);
    lines.push(`${STEP}return true;`);
    return `${lines.join('\n')}\n`;
  }
}

function numberTest(node: Extract<Node, { kind: 'number' }>): string {
  const tests = ["typeof x === 'number'"];
  const lower = node.minimum ?? node.exclusiveMinimum;
  const upper = node.maximum ?? node.exclusiveMaximum;
  const safe = lower !== undefined && upper !== undefined && lower >= -SAFE && upper <= SAFE;
  // Number.isInteger implies finite (zod rejects NaN and ±Infinity); zod's z.int() wants a safe one.
  if (!node.integer) tests.push('Number.isFinite(x)');
  else tests.push(safe ? 'Number.isSafeInteger(x)' : 'Number.isInteger(x)');
  if (node.minimum !== undefined) tests.push(`x >= ${num(node.minimum)}`);
  if (node.exclusiveMinimum !== undefined) tests.push(`x > ${num(node.exclusiveMinimum)}`);
  if (node.maximum !== undefined) tests.push(`x <= ${num(node.maximum)}`);
  if (node.exclusiveMaximum !== undefined) tests.push(`x < ${num(node.exclusiveMaximum)}`);
  if (node.multipleOf !== undefined) {
    // zod's decimal-aware check for fractional divisors is not reproduced here.
    if (!Number.isInteger(node.multipleOf)) return 'false';
    tests.push(`x % ${num(node.multipleOf)} === 0`);
  }
  return tests.join(' && ');
}
