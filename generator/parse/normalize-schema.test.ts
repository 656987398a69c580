import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { lookup, parsePointer } from '../load/pointer.js';
import type { JsonSchema } from '../model.js';
import { loadContract } from './index.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-normalize-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Replaces refs by their targets down to a fixed tree depth (so recursion stays finite). A ref with
 * siblings expands to `{ allOf: [target], ...siblings }`: the reading both the source document and
 * the model share, whichever of the two notations the normaliser picked.
 */
function expand(node: unknown, resolve: (ref: string) => unknown, depth: number): unknown {
  if (depth <= 0) return 'CUT';
  if (Array.isArray(node)) return node.map((n) => expand(n, resolve, depth - 1));
  if (!isObject(node)) return node;
  if (typeof node.$ref === 'string') {
    const { $ref, ...rest } = node;
    const target = resolve($ref as string);
    if (Object.keys(rest).length === 0) return expand(target, resolve, depth);
    return expand({ allOf: [target], ...rest }, resolve, depth);
  }
  if (
    Array.isArray(node.allOf) &&
    node.allOf.length === 1 &&
    isObject(node.allOf[0]) &&
    '$ref' in node.allOf[0]
  ) {
    // `{allOf: [{$ref, ...annotations}], ...}` and `{allOf: [{$ref}], ...}` read the same way.
    const { $ref, ...inner } = node.allOf[0];
    const { allOf: _allOf, ...outer } = node;
    return expand({ allOf: [resolve($ref as string)], ...inner, ...outer }, resolve, depth);
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(node).sort()) out[key] = expand(node[key], resolve, depth - 1);
  return out;
}

const COMPONENTS = 4;
const ref = fc.oneof(
  fc.nat(COMPONENTS - 1).map((j) => ({ $ref: `#/components/schemas/C${j}` })),
  fc.nat(COMPONENTS - 1).map((j) => ({ $ref: `#/components/schemas/C${j}`, description: `C${j} again` })),
  fc.nat(COMPONENTS - 1).map((j) => ({ $ref: `#/components/schemas/C${j}`, required: ['p0'] })),
  // Unnamed targets: never pure refs, so no ref_cycle; p1 may recurse into itself.
  fc
    .tuple(fc.nat(COMPONENTS - 1), fc.constantFrom('p0', 'p1'))
    .map(([j, p]) => ({ $ref: `#/components/schemas/C${j}/properties/${p}` })),
);
const component = fc.tuple(ref, ref).map(([inner, p2]) => ({
  type: 'object',
  properties: {
    p0: { type: 'string' },
    p1: { type: 'object', properties: { x: inner } },
    p2,
  },
}));

describe('schema normalisation (property)', () => {
  it('model-local refs expand to the same schemas as the source refs, for any ref graph', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(component, { minLength: COMPONENTS, maxLength: COMPONENTS }),
        async (components) => {
          const schemas = Object.fromEntries(components.map((c, i) => [`C${i}`, c]));
          const payload = {
            type: 'object',
            properties: Object.fromEntries(
              components.map((_, i) => [`c${i}`, { $ref: `#/components/schemas/C${i}` }]),
            ),
          };
          const doc = {
            openapi: '3.1.0',
            info: { title: 'Graph', version: '1' },
            webhooks: {
              graph: { post: { requestBody: { content: { 'application/json': { schema: payload } } } } },
            },
            components: { schemas },
          };
          const file = path.join(mkdtempSync(path.join(tmp, 'g-')), 'graph.json');
          writeFileSync(file, JSON.stringify(doc));
          const model = await loadContract(file);
          const fromModel = (r: string): JsonSchema => {
            const key = r.slice('#/schemas/'.length);
            const found = model.schemas[key];
            if (!found) throw new Error(`dangling ${r}`);
            return found.schema;
          };
          const fromDoc = (r: string): unknown => {
            const found = lookup(doc, parsePointer(r.slice(1)) ?? []);
            if (!found.found) throw new Error(`bad ref ${r}`);
            return found.value;
          };
          const event = model.events[0];
          expect(expand(event?.payload.schema, fromModel, 9)).toEqual(expand(payload, fromDoc, 9));
          // Every named component keeps its name.
          for (let i = 0; i < COMPONENTS; i++)
            expect(model.schemas[`C${i}`]?.source).toBe(`${file}#/components/schemas/C${i}`);
        },
      ),
      { numRuns: 60 },
    );
  });
});
