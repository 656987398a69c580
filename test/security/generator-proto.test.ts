/**
 * Threat: names that are also `Object.prototype`'s break the generator or the validator.
 *
 * Attack (or accident: `constructor` is an ordinary English word): a contract has a component
 * named `__proto__`, a property `__proto__` or `constructor`, a schema keyword `__proto__`, or an
 * event of that name. Objects used as maps in the generator turned `x['__proto__'] = …` into a
 * prototype change: a component named `__proto__` was an internal error, a required property
 * `__proto__` was emitted as `z.never()` (every valid payload rejected), a keyword `__proto__`
 * made the schema inherit its content. zod reads keys through the prototype and skips
 * `__proto__`: an absent optional `constructor` "was" a function and failed, and `__proto__` was
 * neither checked nor kept.
 *
 * What must hold: the module compiles under tsc --strict with every file checked; a payload from
 * `JSON.parse` (where `__proto__` is an own key) is accepted exactly when it is valid, and the parsed
 * value keeps such keys as own properties, the prototype of nothing changing on the way.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { generate } from '../../generator/index.js';
import { repoRoot, typecheck } from '../types/typecheck.js';

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'security-proto-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const hook = (schema: unknown) => ({
  post: { requestBody: { content: { 'application/json': { schema } } } },
});

// JSON text, not an object literal: `{ __proto__: … }` in JS would set a prototype, not a key.
const CONTRACT = `{
  "openapi": "3.1.0",
  "info": { "title": "Proto", "version": "1" },
  "webhooks": {
    "holder": ${JSON.stringify(hook(ref('Holder')))},
    "strict": ${JSON.stringify(hook(ref('Strict')))},
    "composed": ${JSON.stringify(hook(ref('Composed')))},
    "poison": ${JSON.stringify(hook(ref('Poison')))},
    "optional": ${JSON.stringify(hook(ref('Optional')))},
    "either": ${JSON.stringify(hook(ref('Either')))},
    "__proto__": ${JSON.stringify(hook(ref('constructor')))},
    "constructor": ${JSON.stringify(hook(ref('__proto__')))}
  },
  "components": { "schemas": {
    "__proto__": { "type": "object", "required": ["x"], "properties": { "x": { "type": "string" } } },
    "constructor": { "type": "string", "enum": ["a", "b"] },
    "Holder": {
      "type": "object",
      "required": ["__proto__", "constructor"],
      "properties": {
        "__proto__": { "$ref": "#/components/schemas/__proto__" },
        "constructor": { "$ref": "#/components/schemas/constructor" },
        "toString": { "type": "boolean" }
      }
    },
    "Strict": {
      "type": "object",
      "additionalProperties": false,
      "required": ["__proto__"],
      "properties": { "__proto__": { "type": "string" }, "a": { "type": "integer" } }
    },
    "Composed": { "allOf": [{ "$ref": "#/components/schemas/Holder" }, { "required": ["extra"], "properties": { "extra": { "type": "string" } } }] },
    "Poison": { "type": "object", "__proto__": { "type": "string", "required": ["never"] } },
    "Optional": { "type": "object", "properties": { "constructor": { "type": "string" }, "valueOf": { "type": "integer" } } },
    "Either": {
      "oneOf": [
        { "type": "object", "required": ["kind", "constructor"], "properties": { "kind": { "const": "a" }, "constructor": { "type": "string" } } },
        { "type": "object", "required": ["kind"], "properties": { "kind": { "const": "b" } } }
      ],
      "discriminator": { "propertyName": "kind" }
    }
  } }
}`;

type Schema = z.ZodType;
let eventSchemas: Record<string, Schema>;
let fixtures: Record<string, unknown>;
let contract: { events: Record<string, unknown> };
let folder: string;

beforeAll(async () => {
  const input = path.join(dir, 'proto.json');
  writeFileSync(input, CONTRACT);
  const result = await generate({ inputs: [input], out: path.join(dir, 'out'), cwd: dir, checkAll: true });
  folder = path.join(dir, 'out', result.contracts[0]?.name ?? '');
  ({ eventSchemas } = await import(pathToFileURL(path.join(folder, 'schemas.ts')).href));
  ({ fixtures } = await import(pathToFileURL(path.join(folder, 'fixtures.ts')).href));
  ({ contract } = await import(pathToFileURL(path.join(folder, 'contract.ts')).href));
}, 60_000);

function parse(event: string, json: string): { ok: boolean; value?: unknown; paths?: string[] } {
  const schema = eventSchemas[event];
  if (!schema) throw new Error(`no schema for ${event}`);
  const result = schema.safeParse(JSON.parse(json));
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, paths: result.error.issues.map((i) => i.path.join('.')) };
}

describe('__proto__ and constructor as names', () => {
  it('the module compiles under tsc --strict, every file checked, with a consumer using the types', () => {
    const consumer = path.join(folder, 'consumer.ts');
    writeFileSync(
      consumer,
      [
        "import type { Holder, Optional, Proto, Strict } from './types.js';",
        'const proto: Proto = JSON.parse(\'{"x":"y"}\');',
        "export const holder: Holder = { ['__proto__']: proto, constructor: 'a' };",
        "export const x: string = holder['__proto__'].x;",
        // An optional `constructor`/`valueOf` may be left out of a literal.
        'export const optional: Optional = {};',
        "export const strict: Strict = { ['__proto__']: 's', a: 1 };",
        '',
      ].join('\n'),
    );
    expect(typecheck([path.join(folder, 'index.ts'), path.join(folder, 'fixtures.ts'), consumer])).toEqual(
      [],
    );
  }, 120_000);

  it('events named __proto__ and constructor are own keys of the descriptor and the fixtures', () => {
    for (const map of [contract.events, eventSchemas, fixtures]) {
      expect(Object.hasOwn(map, '__proto__')).toBe(true);
      expect(Object.hasOwn(map, 'constructor')).toBe(true);
      expect(Object.getPrototypeOf(map)).toBe(Object.prototype);
    }
    for (const [event, fixture] of Object.entries(fixtures)) {
      expect(eventSchemas[event]?.safeParse(fixture).success, event).toBe(true);
    }
    expect(Object.hasOwn(fixtures.holder as object, '__proto__')).toBe(true);
  });

  it('a required __proto__ property is checked and kept as an own property', () => {
    const valid = parse('holder', '{"__proto__": {"x": "y"}, "constructor": "a"}');
    expect(valid.ok).toBe(true);
    expect(Object.hasOwn(valid.value as object, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(valid.value, '__proto__')?.value).toEqual({ x: 'y' });
    expect(Object.getPrototypeOf(valid.value)).toBe(Object.prototype);
    expect(parse('holder', '{"__proto__": {"x": 1}, "constructor": "a"}')).toEqual({
      ok: false,
      paths: ['__proto__.x'],
    });
    expect(parse('holder', '{"constructor": "a"}')).toEqual({ ok: false, paths: ['__proto__'] });
    expect(parse('holder', '{"__proto__": {"x": "y"}}')).toEqual({ ok: false, paths: ['constructor'] });
    expect(parse('holder', '{"__proto__": {"x": "y"}, "constructor": "a", "toString": 1}').ok).toBe(false);
  });

  it('additionalProperties: false still allows a declared __proto__ and rejects the rest', () => {
    expect(parse('strict', '{"__proto__": "s", "a": 1}').ok).toBe(true);
    expect(parse('strict', '{"__proto__": "s", "b": 1}').ok).toBe(false);
    expect(parse('strict', '{"__proto__": 5, "a": 1}').ok).toBe(false);
    expect(parse('strict', '{"a": 1}').ok).toBe(false);
  });

  it('allOf keeps __proto__ on the merged value', () => {
    const valid = parse('composed', '{"__proto__": {"x": "y"}, "constructor": "b", "extra": "e"}');
    expect(valid.ok).toBe(true);
    expect(Object.hasOwn(valid.value as object, '__proto__')).toBe(true);
    expect(parse('composed', '{"__proto__": {"x": 2}, "constructor": "b", "extra": "e"}').ok).toBe(false);
  });

  it('a schema keyword __proto__ is an unknown keyword, not a prototype to inherit from', () => {
    expect(parse('poison', '{}').ok).toBe(true);
    expect(parse('poison', '"a string"').ok).toBe(false);
  });

  it('an optional constructor / valueOf may be absent, and is checked when present', () => {
    expect(parse('optional', '{}').ok).toBe(true);
    expect(parse('optional', '{"constructor": "c", "valueOf": 1}').ok).toBe(true);
    expect(parse('optional', '{"constructor": 1}').ok).toBe(false);
    expect(parse('optional', '{"valueOf": "1"}').ok).toBe(false);
  });

  it('a discriminated union whose branch declares constructor still validates', () => {
    expect(parse('either', '{"kind": "a", "constructor": "c"}').ok).toBe(true);
    expect(parse('either', '{"kind": "a"}').ok).toBe(false);
    expect(parse('either', '{"kind": "b"}').ok).toBe(true);
    expect(parse('constructor', '{"__proto__": {"x": "y"}}').ok).toBe(false);
    expect(parse('constructor', '{"x": "y"}').ok).toBe(true);
    expect(parse('__proto__', '"a"').ok).toBe(true);
  });
});
