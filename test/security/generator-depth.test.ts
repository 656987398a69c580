/**
 * Threat: a contract made to stall or crash the generator (a CI job, a codegen service).
 *
 * Attack: long `$ref` chains and deep nesting. A chain of 1,000 links took 4.6 s, because each
 * link re-walked the rest of the chain (quadratic); 2,000 links, or 3,000 levels of nested schemas,
 * ended in "Maximum call stack size exceeded": exit 70, an internal error instead of an answer.
 *
 * What must hold: following `$ref`s is linear in the chain's length, and a chain through named
 * schemas costs no stack (each named schema is normalised from a worklist, not inside its
 * referrer), so long chains generate; past the bounds in generator/load/limits.ts (nesting, and
 * chains through unnamed targets, which are inlined) the answer is a `too_deep` GeneratorError
 * (exit 2) naming the file and the JSON pointer where it got too deep, never a RangeError, and
 * nothing is written; a deep but reasonable contract still generates.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runGenerate } from '../../generator/commands/generate.js';
import { GeneratorError, generate } from '../../generator/index.js';
import { DocumentStore, type Loc } from '../../generator/load/document-store.js';
import { MAX_DOCUMENT_DEPTH, MAX_SCHEMA_DEPTH } from '../../generator/load/limits.js';
import type { ToolIo } from '../../generator/tools/output.js';
import { repoRoot } from '../types/typecheck.js';

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'security-depth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;

/** Writes an OpenAPI 3.1 contract whose one event's payload is `#/components/schemas/S0`. */
function contract(schemas: string, extra = ''): string {
  const file = path.join(dir, `c${n++}.json`);
  writeFileSync(
    file,
    `{"openapi":"3.1.0","info":{"title":"Deep","version":"1"},"webhooks":{"e":{"post":{"requestBody":` +
      `{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/S0"}}}}}}},` +
      `"components":{"schemas":{${schemas}}}${extra}}`,
  );
  return file;
}

/** S0 → S1 → … → S<links>, each a bare `$ref`, ending in a string schema. */
function refChain(links: number): string {
  const parts: string[] = [];
  for (let i = 0; i < links; i++) parts.push(`"S${i}":{"$ref":"#/components/schemas/S${i + 1}"}`);
  parts.push(`"S${links}":{"type":"string"}`);
  return parts.join(',');
}

let lastFile = '';

/** S0 → d0 → … → d<links> through `x-defs`: targets outside a `schemas` map have no name and are inlined. */
function inlineChain(links: number): string {
  const inline: string[] = [];
  for (let i = 0; i < links; i++)
    inline.push(`"d${i}":{"type":"object","properties":{"next":{"$ref":"#/x-defs/d${i + 1}"}}}`);
  inline.push(`"d${links}":{"type":"string"}`);
  lastFile = contract('"S0":{"$ref":"#/x-defs/d0"}', `,"x-defs":{${inline.join(',')}}`);
  return lastFile;
}

/** S0 nests `levels` objects, each with one property `a`. Built as text: JSON.stringify would recurse. */
function nesting(levels: number): string {
  return `"S0":${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;
}

async function tooDeep(file: string): Promise<GeneratorError> {
  const out = path.join(dir, `out-${n++}`);
  try {
    await generate({ inputs: [file], out, cwd: dir });
  } catch (error) {
    if (!(error instanceof GeneratorError)) throw error;
    expect(existsSync(out)).toBe(false);
    return error;
  }
  throw new Error('expected a too_deep GeneratorError');
}

function io(): ToolIo & { err: () => string } {
  let err = '';
  return {
    stdout: { write: () => true },
    stderr: { write: (chunk: string) => (err += chunk) },
    env: {},
    err: () => err,
  };
}

describe('$ref chains and nesting are bounded, with a typed error', () => {
  it('a chain of 2,000 $refs between named schemas generates', async () => {
    const out = path.join(dir, `chain-${n++}`);
    const result = await generate({ inputs: [contract(refChain(2000))], out, cwd: dir });
    expect(result.contracts[0]?.events).toEqual(['e']);
    expect(existsSync(path.join(out, result.contracts[0]?.name ?? '', 'types.ts'))).toBe(true);
  });

  it('a chain of 1,000 unnamed (inlined) targets is too_deep, naming the file and where', async () => {
    const error = await tooDeep(inlineChain(1000));
    expect(error.code).toBe('too_deep');
    expect(error.file).toBe(path.relative(process.cwd(), lastFile));
    expect(error.pointer).toMatch(/^\/x-defs\/d\d+(\/properties\/next)?$/);
    expect(error.expected).toContain(String(MAX_SCHEMA_DEPTH));
  });

  it('3,000 levels of nested schemas are too_deep when the document is read', async () => {
    const error = await tooDeep(contract(nesting(3000)));
    expect(error.code).toBe('too_deep');
    expect(error.message).toContain(String(MAX_DOCUMENT_DEPTH));
    expect(error.pointer).toMatch(/^\/components\/schemas\/S0(\/properties\/a)+/);
  });

  it('nesting the document allows but the schema bound does not is too_deep too', async () => {
    const error = await tooDeep(contract(nesting(MAX_SCHEMA_DEPTH + 50)));
    expect(error.code).toBe('too_deep');
    expect(error.expected).toContain(String(MAX_SCHEMA_DEPTH));
    expect(error.pointer).toMatch(/^\/components\/schemas\/S0(\/properties\/a)+$/);
  });

  it('a chain of 2,000 named objects, each referring to the next, generates', async () => {
    const named: string[] = [];
    for (let i = 0; i < 2000; i++)
      named.push(`"S${i}":{"type":"object","properties":{"next":{"$ref":"#/components/schemas/S${i + 1}"}}}`);
    named.push('"S2000":{"type":"string"}');
    const out = path.join(dir, `named-${n++}`);
    await generate({ inputs: [contract(named.join(','))], out, cwd: dir });
  });

  it('the CLI answers exit 2 with one line, not exit 70 with a stack trace', async () => {
    for (const file of [inlineChain(2000), contract(nesting(3000))]) {
      const run = io();
      expect(await runGenerate([file, '--out', path.join(dir, `cli-${n++}`)], run)).toBe(2);
      expect(run.err().trim().split('\n')).toHaveLength(1);
      expect(run.err()).toMatch(/\[too_deep\]$/m);
      expect(run.err()).not.toMatch(/Maximum call stack|internal error/);
    }
  });

  it('a deep but reasonable contract still generates', async () => {
    const out = path.join(dir, `ok-${n++}`);
    await generate({ inputs: [contract(refChain(100))], out, cwd: dir });
    await generate({ inputs: [contract(nesting(100))], out, cwd: dir });
  });
});

describe('following $ref chains is linear', () => {
  it('dereferencing every link of a 1,000-link chain resolves each link about once', async () => {
    const store = await DocumentStore.open(contract(refChain(1000)));
    const resolve = vi.spyOn(store, 'resolve');
    const schemas = (store.root.value as { components: { schemas: Record<string, unknown> } }).components
      .schemas;
    for (let i = 0; i <= 1000; i++) {
      const loc: Loc = { doc: store.root, pointer: `/components/schemas/S${i}`, value: schemas[`S${i}`] };
      expect(store.deref(loc).loc.pointer).toBe('/components/schemas/S1000');
    }
    // Quadratic was ~500,000 (each link walking the rest of the chain).
    expect(resolve.mock.calls.length).toBeLessThanOrEqual(1000);
  });

  it('generating a 1,000-link chain resolves each link a bounded number of times', async () => {
    const resolve = vi.spyOn(DocumentStore.prototype, 'resolve');
    try {
      await generate({ inputs: [contract(refChain(1000))], out: path.join(dir, `linear-${n++}`), cwd: dir });
      expect(resolve.mock.calls.length).toBeLessThan(5 * 1000);
    } finally {
      resolve.mockRestore();
    }
  });
});
