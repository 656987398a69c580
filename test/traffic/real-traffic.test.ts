/**
 * Real traffic (#17): for every contract of the shared corpus and for GitHub's published webhooks,
 * deliveries built as the vendor sends them — the spec's example bodies (else a generated fixture
 * placed in the body as the vendor's documentation describes), headers and signature per the vendor's
 * documented scheme (test/traffic/vendors/*.ts, each citing its documentation) — are posted over
 * HTTP to the generated receiver, which must accept each one and hand it to the typed handler of
 * its event, with the payload intact. The only per-vendor input to generation is the signature
 * scheme, as a user would configure it for a spec that does not declare one; envelope and event
 * selection come from the specs.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { GeneratorError } from '../../generator/errors.js';
import { emitAll } from '../../generator/generate.js';
import type { ContractModel } from '../../generator/model.js';
import { loadContract } from '../../generator/parse/index.js';
import { createPayloadValidator } from '../../generator/tools/validate.js';
import { writeOutput } from '../../generator/write.js';
import { corpusFiles, findCorpus, repoRoot } from './corpus.js';
import { type Answer, endpoint, type GeneratedModule } from './deliver.js';
import { bodyExamples } from './spec-examples.js';
import type { Vendor } from './vendor.js';
import { adyen } from './vendors/adyen.js';
import { github } from './vendors/github.js';
import { specExamples } from './vendors/spec-examples.js';
import { svix } from './vendors/svix.js';
import { upBanking } from './vendors/up-banking.js';

const VENDORS: readonly Vendor[] = [adyen, github, specExamples, svix, upBanking];
const corpus = findCorpus();
if (corpus === undefined) console.warn('skipping real-traffic: no corpus (set GEN_WEBHOOKS_CORPUS)');

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'traffic-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

interface Generated {
  readonly folder: string;
  readonly model: ContractModel;
  readonly unsatisfiable: ReadonlySet<string>;
  /** Events the generator warned receivers cannot tell apart by schema. */
  readonly indistinguishable: ReadonlySet<string>;
}

let sequence = 0;
function generate(model: ContractModel): Generated {
  const out = path.join(dir, String(sequence++));
  const { folders, diagnostics } = emitAll([model], { runtime: 'package', cwd: repoRoot });
  writeOutput(out, folders);
  const unsatisfiable = new Set(
    diagnostics
      .filter((d) => d.code === 'fixture_not_valid')
      .map((d) => /event '([^']+)'/.exec(d.message)?.[1] ?? ''),
  );
  const indistinguishable = new Set(
    diagnostics
      .filter((d) => d.code === 'indistinguishable_events')
      .map((d) => /event '([^']+)'/.exec(d.message)?.[1] ?? ''),
  );
  return { folder: path.join(out, model.name), model, unsatisfiable, indistinguishable };
}

/** The bodies to send for one event: documented examples, else the fixture in the vendor's body. */
function bodiesOf(
  vendor: Vendor,
  file: string,
  abs: string,
  g: Generated,
  event: ContractModel['events'][number],
  fixtures: Record<string, unknown>,
): readonly unknown[] {
  const documented = vendor.examples?.(abs, event.name) ?? [];
  const examples = documented.length > 0 ? documented : bodyExamples(event.source);
  if (examples.length > 0) return examples;
  if (g.unsatisfiable.has(event.name)) return [];
  return [vendor.wrap(fixtures[event.name], event.name, g.model.envelope.kind === 'bare', file)];
}

/** Accepted, and seen by exactly the event's own handler with the vendor's payload. */
function reached(answer: Answer, event: string, vendor: Vendor, body: unknown): string | undefined {
  const why = `${answer.status} ${answer.body} → ${answer.seen.map((s) => s.handler).join(', ') || 'no handler'}`;
  if (answer.status !== 200 || answer.seen.length !== 1 || answer.seen[0]?.handler !== event) return why;
  const data = answer.seen[0].data;
  const payload = vendor.payload === 'data' ? record(body)?.data : body;
  // The receiver hands over the vendor's payload, or (a bare contract) the whole body around it.
  const same = (a: unknown, b: unknown) => isDeepStrictEqual(a, b);
  if (!same(data, body) && !same(data, payload))
    return `${why}: the handler got ${JSON.stringify(data).slice(0, 200)}`;
  const id = vendor.deliveryId?.(answer.headers, body);
  if (id !== undefined && answer.seen[0].id !== id) return `${why}: id ${answer.seen[0].id}, sent ${id}`;
  return undefined;
}

interface Outcome {
  /** Deliveries accepted by their handler under strict validation. */
  readonly sent: number;
  /** Spec examples that contradict the spec's own schema: routed right under `report`, or refused. */
  readonly contradicting: number;
  /** Deliveries of events the generator warned it cannot tell apart by schema. */
  readonly warned: number;
  readonly failures: string[];
}

async function traffic(vendor: Vendor, file: string, abs: string, g: Generated): Promise<Outcome> {
  const mod = (await import(pathToFileURL(path.join(g.folder, 'index.ts')).href)) as GeneratedModule;
  const { fixtures } = (await import(pathToFileURL(path.join(g.folder, 'fixtures.ts')).href)) as {
    fixtures: Record<string, unknown>;
  };
  // Ajv over the contract's own JSON Schemas: tells a spec example that contradicts its schema
  // (the vendor's inconsistency) from one our receiver wrongly refuses.
  const spec = createPayloadValidator(g.model);
  const dataField =
    g.model.envelope.kind === 'envelope' ? (g.model.envelope.fields?.data ?? 'data') : undefined;
  const strict = await endpoint(mod, vendor, 'strict');
  const lenient = await endpoint(mod, vendor, 'report');
  const out = { sent: 0, contradicting: 0, warned: 0, failures: [] as string[] };
  try {
    for (const event of g.model.events) {
      for (const [index, body] of bodiesOf(vendor, file, abs, g, event, fixtures).entries()) {
        const key = `${file} ${event.name} ${index}`;
        const payload = dataField === undefined ? body : record(body)?.[dataField];
        const valid = spec.validate(event.name, payload).length === 0;
        const answer = await (valid ? strict : lenient).deliver(event.name, body);
        const problem = reached(answer, event.name, vendor, body);
        const known = vendor.specErrors?.[key];
        if (known !== undefined) {
          // A listed spec error must still be one: when the spec is fixed, the entry goes.
          if (problem === undefined)
            out.failures.push(`${key}: listed as a spec error (${known}) but accepted`);
        } else if (g.indistinguishable.has(event.name)) {
          out.warned++;
        } else if (!valid) {
          out.contradicting++;
          const refused = answer.status >= 400 && answer.status < 500 && answer.seen.length === 0;
          if (problem !== undefined && !refused)
            out.failures.push(`${key} (contradicts its schema): ${problem}`);
        } else {
          out.sent++;
          if (problem !== undefined) out.failures.push(`${key}: ${problem}`);
        }
      }
    }
  } finally {
    await strict.close();
    await lenient.close();
  }
  return out;
}

describe.skipIf(corpus === undefined)('real traffic: the corpus', async () => {
  const contracts: { file: string; vendor: Vendor; g: Generated }[] = [];
  const tally: (Outcome & { file: string })[] = [];
  const unclaimed: string[] = [];
  for (const file of corpus === undefined ? [] : corpusFiles(corpus)) {
    const vendors = VENDORS.filter((v) => v.files(file));
    let model: ContractModel;
    try {
      model = await loadContract(path.join(corpus as string, file), {
        ...(vendors[0]?.signature ? { signature: vendors[0].signature } : {}),
      });
    } catch (error) {
      if (error instanceof GeneratorError) continue; // not a contract, or refused: corpus-load.test.ts
      throw error;
    }
    if (vendors.length !== 1) unclaimed.push(`${file}: ${vendors.length} vendor fixtures`);
    else contracts.push({ file, vendor: vendors[0] as Vendor, g: generate(model) });
  }

  it('has exactly one vendor fixture for every contract', () => {
    expect(unclaimed).toEqual([]);
    expect(contracts.length).toBeGreaterThan(60);
  });

  it.each(contracts.map((c) => [c.file, c] as const))('%s', async (_file, { file, vendor, g }) => {
    const outcome = await traffic(vendor, file, path.join(corpus as string, file), g);
    expect(outcome.failures).toEqual([]);
    expect(outcome.sent + outcome.contradicting + outcome.warned).toBeGreaterThan(0);
    tally.push({ file, ...outcome });
  });

  it('accepts most deliveries strictly; what it cannot tell apart was warned about', () => {
    const sum = (key: 'sent' | 'contradicting' | 'warned') => tally.reduce((n, t) => n + t[key], 0);
    console.info(
      `real traffic: ${sum('sent')} accepted strictly, ${sum('contradicting')} spec examples contradicting their schema, ${sum('warned')} of events warned indistinguishable`,
    );
    expect(sum('sent')).toBeGreaterThan(4 * (sum('contradicting') + sum('warned')));
  });
});

describe("real traffic: GitHub's published webhooks", async () => {
  const require = createRequire(import.meta.url);
  const spec = require.resolve('@octokit/openapi-webhooks/generated/api.github.com.json');
  const examplesFile = require.resolve('@octokit/webhooks-examples/api.github.com/index.json');
  const g = generate(await loadContract(spec));

  it('routes every @octokit/webhooks-examples payload, signed as GitHub signs, to its handler', async () => {
    const mod = (await import(pathToFileURL(path.join(g.folder, 'index.ts')).href)) as GeneratedModule;
    const groups = JSON.parse(readFileSync(examplesFile, 'utf8')) as {
      name: string;
      examples: Record<string, unknown>[];
    }[];
    // Published examples predate today's schemas in places (GitHub's own inconsistency, kept by
    // octokit), so validation is reported here; the spec's own examples below are strict.
    const server = await endpoint(mod, github, 'report');
    const failures: string[] = [];
    let sent = 0;
    try {
      for (const group of groups) {
        for (const [index, example] of group.examples.entries()) {
          const action = typeof example.action === 'string' ? `${group.name}.${example.action}` : undefined;
          const event = action !== undefined && action in mod.contract.events ? action : group.name;
          const answer = await server.deliver(event, example);
          const problem = reached(answer, event, github, example);
          if (problem !== undefined) failures.push(`${group.name}[${index}] ${event}: ${problem}`);
          sent++;
        }
      }
    } finally {
      await server.close();
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(300);
  }, 300_000);

  it("accepts the spec's own examples under strict validation", async () => {
    const outcome = await traffic(github, 'api.github.com.json', spec, g);
    expect(outcome.failures).toEqual([]);
    expect(outcome.sent).toBeGreaterThan(200);
  }, 300_000);
});
