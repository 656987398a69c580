/**
 * The fast path of GitHub's generated `eventValidators` (generator/schema/check.ts) on GitHub's published
 * example payloads (@octokit/webhooks-examples), as published and mutated at random: it gives the
 * answer the zod schema gives — the same issues when invalid, an equal value when valid — and it is
 * the fast path (the payload itself, uncopied) that answers every payload zod accepts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../generator/generate.js';
import type { Contract, EventMapBase, StandardSchemaV1 } from '../runtime/contract.js';
import { providers } from '../runtime/presets/index.js';
import { createReceiver } from '../runtime/receive/receiver-node.js';
import { repoRoot } from './types/typecheck.js';

const require = createRequire(import.meta.url);
const spec = require.resolve('@octokit/openapi-webhooks/generated/api.github.com.json');
const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'github-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Example {
  readonly event: string;
  readonly text: string;
}

function examples(events: ReadonlySet<string>): Example[] {
  const groups = JSON.parse(
    readFileSync(require.resolve('@octokit/webhooks-examples/api.github.com/index.json'), 'utf8'),
  ) as { name: string; examples: Record<string, unknown>[] }[];
  const out: Example[] = [];
  for (const group of groups) {
    for (const example of group.examples) {
      const action = example['action'];
      const event = typeof action === 'string' ? `${group.name}.${action}` : group.name;
      if (events.has(event)) out.push({ event, text: JSON.stringify(example) });
    }
  }
  return out;
}

const result = (schema: StandardSchemaV1, value: unknown) =>
  schema['~standard'].validate(value) as StandardSchemaV1.Result<unknown>;

/** Compares the fast path with zod on `value`; returns whether the fast path answered. */
function compare(fast: StandardSchemaV1, value: unknown, label: string): boolean {
  const zod = Object.getPrototypeOf(fast) as StandardSchemaV1;
  const expected = result(zod, value);
  const actual = result(fast, value);
  if (expected.issues !== undefined) {
    expect(actual.issues, label).toEqual(expected.issues);
    return false;
  }
  if (actual.issues !== undefined) throw new Error(`${label}: zod accepts, the fast path rejects`);
  if (!isDeepStrictEqual(actual.value, expected.value)) throw new Error(`${label}: values differ`);
  return actual.value === value;
}

const REPLACEMENTS: unknown[] = [
  null,
  0,
  -1,
  1.5,
  2 ** 60,
  '',
  'x',
  'not a uri',
  'https://example.com/a b',
  '2024-13-01T00:00:00Z',
  '2024-01-01T00:00:00Z',
  true,
  {},
  [],
  [1],
  { id: 1 },
];

/** A copy of `value` with the node at `steps` (indices into each level's keys) replaced or deleted. */
function mutate(value: unknown, steps: readonly number[], replacement: number): unknown {
  const copy = structuredClone(value);
  let parent: Record<string, unknown> | unknown[] | undefined;
  let key: string | number | undefined;
  let node: unknown = copy;
  for (const step of steps) {
    if (typeof node !== 'object' || node === null) break;
    const keys = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    parent = node as Record<string, unknown>;
    key = keys[step % keys.length];
    node = (parent as Record<string | number, unknown>)[key as string];
  }
  if (parent === undefined || key === undefined) return copy;
  if (replacement >= REPLACEMENTS.length && !Array.isArray(parent)) delete parent[key as string];
  else (parent as Record<string | number, unknown>)[key] = REPLACEMENTS[replacement % REPLACEMENTS.length];
  return copy;
}

describe("GitHub's eventValidators fast path", async () => {
  const generated = await generate({ inputs: [spec], out: dir, cwd: repoRoot });
  const folder = path.join(dir, generated.contracts[0]?.name ?? '');
  const { eventValidators: eventSchemas } = (await import(
    pathToFileURL(path.join(folder, 'validators.js')).href
  )) as { eventValidators: Record<string, StandardSchemaV1> };
  const { contract } = (await import(pathToFileURL(path.join(folder, 'contract.js')).href)) as {
    contract: Contract<EventMapBase>;
  };
  const all = examples(new Set(Object.keys(eventSchemas)));

  it('answers every published example as zod does, and takes the fast path for every valid one', () => {
    expect(all.length).toBeGreaterThan(300);
    let valid = 0;
    let fast = 0;
    for (const { event, text } of all) {
      const value = JSON.parse(text) as unknown;
      const schema = eventSchemas[event] as StandardSchemaV1;
      if (result(Object.getPrototypeOf(schema) as StandardSchemaV1, value).issues === undefined) valid++;
      if (compare(schema, value, event)) fast++;
    }
    expect(valid).toBeGreaterThan(100);
    expect(fast).toBe(valid);
  }, 120_000);

  it('property: answers mutated examples as zod does (same issues when invalid)', () => {
    fc.assert(
      fc.property(
        fc.nat(all.length - 1),
        fc.array(fc.nat(200), { minLength: 1, maxLength: 6 }),
        fc.nat(REPLACEMENTS.length),
        (index, steps, replacement) => {
          const { event, text } = all[index] as Example;
          const value = mutate(JSON.parse(text), steps, replacement);
          compare(eventSchemas[event] as StandardSchemaV1, value, `${event} ${JSON.stringify(steps)}`);
        },
      ),
      { numRuns: 3000 },
    );
  }, 120_000);

  it("the receiver still answers what zod rejects with a 400 invalid_payload and zod's issues", async () => {
    const secret = 'check-parity-secret';
    const receiver = createReceiver(contract, {
      secret,
      dedupe: false,
      // The 400 is what this compares (the default is `report`).
      validation: 'strict',
      handlers: Object.fromEntries(Object.keys(eventSchemas).map((e) => [e, () => {}])) as never,
    });
    const scheme = providers.github.scheme({ secret });
    const cases = fc.sample(
      fc.tuple(fc.nat(all.length - 1), fc.array(fc.nat(200), { minLength: 1, maxLength: 6 }), fc.nat(15)),
      { numRuns: 400, seed: 7 },
    );
    let rejected = 0;
    for (const [index, steps, replacement] of cases) {
      const { event, text } = all[index] as Example;
      const original = JSON.parse(text) as { action?: unknown };
      const value = mutate(original, steps, replacement) as { action?: unknown };
      // A changed `action` selects another event (or none): not this comparison.
      if (value.action !== original.action) continue;
      const zod = Object.getPrototypeOf(eventSchemas[event]) as StandardSchemaV1;
      const expected = result(zod, value);
      if (expected.issues === undefined) continue;
      const body = JSON.stringify(value);
      const dot = event.indexOf('.');
      const headers = {
        ...(await scheme.sign({ id: `m-${rejected}`, timestamp: 0, body })),
        'x-github-event': dot === -1 ? event : event.slice(0, dot),
      };
      const answer = await receiver.handle({ headers, body });
      expect(answer.status, `${event} ${answer.body}`).toBe(400);
      const error = (JSON.parse(answer.body) as { error: { code: string; issues: { path: string }[] } })
        .error;
      expect(error.code).toBe('invalid_payload');
      expect(error.issues.map((i) => i.path)).toEqual(
        expected.issues.map((i) =>
          (i.path ?? [])
            .map(
              (p) =>
                `/${String(typeof p === 'object' ? p.key : p)
                  .replaceAll('~', '~0')
                  .replaceAll('/', '~1')}`,
            )
            .join(''),
        ),
      );
      rejected++;
    }
    expect(rejected).toBeGreaterThan(100);
    await receiver.stop();
  }, 120_000);
});
