/**
 * The generated zod validators and a standard JSON Schema validator (ajv 2020-12 + ajv-formats) give
 * the same verdict on the same model and payload:
 *  - every GitHub example (@octokit/webhooks-examples 7.6.1) against GitHub's schema (12.1.0);
 *  - every example of every loadable document of the shared corpus;
 *  - generated schemas × generated values (fast-check), through the whole pipeline: an OpenAPI 3.1
 *    document is written, loaded, generated and imported.
 * Any disagreement must be listed in DELIBERATE (reasons in docs/evolution.md); the lists are exact.
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../generator/parse/index.js';
import { corpusDir, missingCorpus } from '../support/requires.js';
import { ajvForModel, generateSchemas, githubEventFor, tempDir } from './agreement-harness.js';

const require = createRequire(import.meta.url);
const tmp = tempDir('agreement-');
afterAll(() => tmp.remove());

interface Disagreement {
  /** `github`, a corpus path, or `generated`. */
  readonly source: string;
  readonly event: string;
  readonly example: number;
  readonly ajv: boolean;
  readonly zod: boolean;
}

/**
 * Documented deliberate differences (docs/evolution.md, "zod and JSON Schema"). Empty today: on
 * GitHub's 329 examples and the corpus' examples, zod and ajv agree on every payload.
 */
const DELIBERATE: readonly Disagreement[] = [];

interface GitHubExampleGroup {
  readonly name: string;
  readonly examples: readonly Record<string, unknown>[];
}

describe('GitHub: every @octokit/webhooks-examples payload, zod vs ajv', async () => {
  const spec = require.resolve('@octokit/openapi-webhooks/generated/api.github.com.json');
  const groups = require('@octokit/webhooks-examples/api.github.com/index.json') as GitHubExampleGroup[];
  const model = await loadContract(spec, { preset: 'github' });
  const generated = await generateSchemas(spec, path.join(tmp.dir, 'github'));
  const ajv = ajvForModel(model);

  const verdicts: {
    event: string;
    example: number;
    ajv: ReturnType<ReturnType<typeof ajv>>;
    zod: boolean;
  }[] = [];
  const unmapped: string[] = [];
  for (const group of groups) {
    group.examples.forEach((payload, example) => {
      const event = githubEventFor(model.events, group.name, payload.action);
      if (!event) {
        unmapped.push(`${group.name}#${example}`);
        return;
      }
      const schema = generated.eventSchemas[event.name];
      if (!schema) throw new Error(`no zod schema emitted for ${event.name}`);
      verdicts.push({
        event: event.name,
        example,
        ajv: ajv(event.name)(payload),
        zod: schema.safeParse(payload).success,
      });
    });
  }

  it('maps every example to an event (header + action, as the receiver routes)', () => {
    expect(unmapped).toEqual([]);
    expect(verdicts.length).toBe(329);
  });

  it('zod and ajv agree on every example (or the difference is listed)', () => {
    const disagreements = verdicts
      .filter((v) => v.ajv.valid !== v.zod)
      .map((v) => ({ source: 'github', event: v.event, example: v.example, ajv: v.ajv.valid, zod: v.zod }));
    expect(disagreements).toEqual(DELIBERATE.filter((d) => d.source === 'github'));
  });

  it('headline: how many real examples the published schema rejects, by first ajv error', () => {
    const failing = verdicts.filter((v) => !v.ajv.valid);
    const byKind: Record<string, number> = {};
    for (const v of failing) {
      const keyword = v.ajv.errors[0]?.keyword ?? 'unknown';
      const kind =
        keyword === 'required'
          ? 'required'
          : keyword === 'format'
            ? 'format'
            : keyword === 'type' || keyword === 'enum' || keyword === 'const'
              ? 'type/enum'
              : keyword;
      byKind[kind] = (byKind[kind] ?? 0) + 1;
    }
    console.info(`GitHub examples failing the published schema (ajv): ${failing.length}/329`, byKind);
    // The issue measured 122 (102 missing required, 13 formats, 7 type/enum). Same total here; the
    // split here is by the FIRST ajv error (allErrors: false), which differs from the by one.
    // Both repository_dispatch examples route (header-only event) and fail on `required`.
    expect(failing.length).toBe(122);
    expect(byKind).toEqual({ required: 103, format: 13, 'type/enum': 6 });
    // ...and zod rejects exactly the same 122 (the agreement test above).
    expect(verdicts.filter((v) => !v.zod).length).toBe(122);
  });
});

const corpus = corpusDir();
const noCorpus = missingCorpus('the corpus examples (zod vs ajv)');

function listFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) files.push(...listFiles(full));
    else if (/\.(ya?ml|json)$/i.test(entry)) files.push(full);
  }
  return files;
}

describe.skipIf(noCorpus)('shared corpus: every example of every loadable document, zod vs ajv', () => {
  it('agree (or the difference is listed)', async () => {
    const disagreements: Disagreement[] = [];
    let documents = 0;
    let examples = 0;
    let index = 0;
    for (const file of listFiles(corpus)) {
      const source = path.relative(corpus, file);
      let model: Awaited<ReturnType<typeof loadContract>>;
      try {
        model = await loadContract(file);
      } catch {
        continue; // not loadable: corpus-load.test.ts says why for each file
      }
      const withExamples = model.events.filter((e) => e.examples.length > 0);
      if (withExamples.length === 0) continue;
      documents++;
      const generated = await generateSchemas(file, path.join(tmp.dir, `corpus-${index++}`));
      const ajv = ajvForModel(generated.model);
      for (const event of withExamples) {
        const schema = generated.eventSchemas[event.name];
        if (!schema) throw new Error(`${source}: no zod schema emitted for ${event.name}`);
        event.examples.forEach((payload, example) => {
          examples++;
          const a = ajv(event.name)(payload).valid;
          const z = schema.safeParse(payload).success;
          if (a !== z) disagreements.push({ source, event: event.name, example, ajv: a, zod: z });
        });
      }
    }
    console.info(`corpus: ${examples} examples in ${documents} documents compared`);
    expect(documents).toBeGreaterThan(0);
    expect(disagreements).toEqual(
      DELIBERATE.filter((d) => d.source !== 'github' && d.source !== 'generated'),
    );
  }, 300_000);
});

// Generated edge cases through the whole pipeline. The vocabulary excludes the differences the
// schema converter documents (generator/schema/README.md): formats, fractional multipleOf,
// uniqueItems over objects, additionalProperties:false inside allOf, typeless `properties`.
type Schema = Record<string, unknown>;
const KEYS = ['id', 'name', 'a-b'];
const lit = fc.constantFrom<unknown>('a', 'b', '', 0, 1, -1, 2.5, true, false, null);
const leaf: fc.Arbitrary<Schema> = fc.oneof(
  fc.record(
    {
      type: fc.constant('string'),
      minLength: fc.nat(2),
      maxLength: fc.integer({ min: 1, max: 4 }),
      pattern: fc.constantFrom('^[a-z]*$', 'b'),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record(
    {
      type: fc.constantFrom('integer', 'number'),
      minimum: fc.integer({ min: -2, max: 2 }),
      exclusiveMaximum: fc.constantFrom(3, 10),
      multipleOf: fc.constantFrom(1, 2),
    },
    { requiredKeys: ['type'] },
  ),
  fc.constant({ type: 'boolean' }),
  fc
    .uniqueArray(lit, { minLength: 1, maxLength: 3, selector: (v) => JSON.stringify(v) })
    .map((values) => ({ enum: values })),
  lit.map((value) => ({ const: value })),
  fc.subarray(['string', 'integer', 'boolean', 'null'], { minLength: 1 }).map((type) => ({ type })),
);
const { schema: schemaArb } = fc.letrec<{ schema: Schema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc
      .record({
        properties: fc.dictionary(fc.constantFrom(...KEYS), tie('schema'), { maxKeys: 3 }),
        required: fc.subarray(KEYS, { maxLength: 2 }),
        additionalProperties: fc.constantFrom<unknown>(true, false, { type: 'integer' }),
      })
      .map((o) => ({ type: 'object', ...o })),
    fc
      .record({ items: tie('schema'), maxItems: fc.nat(3) }, { requiredKeys: ['items'] })
      .map((a) => ({ type: 'array', ...a })),
    fc.array(tie('schema'), { minLength: 2, maxLength: 3 }).map((anyOf) => ({ anyOf })),
    tie('schema').map((s) => ({ anyOf: [s, { type: 'null' }] })),
  ),
}));
const valueArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.dictionary(fc.constantFrom(...KEYS), fc.oneof(lit, fc.jsonValue({ maxDepth: 1 })), { maxKeys: 3 }),
  lit,
  fc.array(lit, { maxLength: 4 }),
);

describe('generated edge cases through load → generate → import, zod vs ajv', () => {
  it('agree on fast-check schemas × values', async () => {
    const schemas = fc.sample(schemaArb, { numRuns: 60, seed: 8 });
    const webhooks: Record<string, unknown> = {};
    schemas.forEach((schema, i) => {
      webhooks[`case.${i}`] = {
        post: {
          requestBody: { content: { 'application/json': { schema } } },
          responses: { '200': { description: 'ok' } },
        },
      };
    });
    const file = path.join(tmp.dir, 'edge-cases.json');
    writeFileSync(
      file,
      JSON.stringify({ openapi: '3.1.0', info: { title: 'Edge cases', version: '1' }, webhooks }),
    );
    const generated = await generateSchemas(file, path.join(tmp.dir, 'edge'));
    const ajv = ajvForModel(generated.model);
    const disagreements: (Disagreement & { value: unknown; schema: unknown })[] = [];
    let compared = 0;
    schemas.forEach((schema, i) => {
      const event = `case.${i}`;
      const zod = generated.eventSchemas[event];
      if (!zod) throw new Error(`no zod schema for ${event}`);
      for (const value of fc.sample(valueArb, { numRuns: 40, seed: i })) {
        compared++;
        const a = ajv(event)(value).valid;
        const z = zod.safeParse(value).success;
        if (a !== z)
          disagreements.push({
            source: 'generated',
            event,
            example: compared,
            ajv: a,
            zod: z,
            value,
            schema,
          });
      }
    });
    expect(compared).toBe(60 * 40);
    expect(disagreements).toEqual([]);
  }, 120_000);
});
