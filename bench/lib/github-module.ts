/**
 * GitHub's typed module for the benches: generated from `@octokit/openapi-webhooks` (as a user would)
 * into a temporary folder inside the repo (so `zod` resolves), plus real example payloads from
 * `@octokit/webhooks-examples`, each checked against the generated schema before it is used.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generate } from '../../generator/generate.js';
import type { Contract, EventMapBase, StandardSchemaV1 } from '../../runtime/contract.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

export interface GitHubModule {
  readonly contract: Contract<EventMapBase>;
  readonly eventSchemas: { readonly [event: string]: StandardSchemaV1 };
  /** Removes the generated folder. */
  dispose(): void;
}

export interface Example {
  /** Contract event name, e.g. `issues.opened`. */
  readonly event: string;
  /** `X-GitHub-Event`. */
  readonly header: string;
  readonly body: string;
  /** What was changed from the published example, if anything (and why). */
  readonly note?: string;
}

export async function generateGitHub(): Promise<GitHubModule> {
  const spec = require.resolve('@octokit/openapi-webhooks/generated/api.github.com.json');
  const tmp = path.join(repoRoot, 'test/.tmp');
  fs.mkdirSync(tmp, { recursive: true });
  const dir = fs.mkdtempSync(path.join(tmp, 'bench-github-'));
  const result = await generate({ inputs: [spec], out: dir, cwd: repoRoot });
  const folder = path.join(dir, result.contracts[0]?.name ?? '');
  const { contract } = (await import(pathToFileURL(path.join(folder, 'contract.js')).href)) as {
    contract: Contract<EventMapBase>;
  };
  // The receiver's schemas: each zod schema behind its compiled predicate (validators.js).
  const { eventValidators: eventSchemas } = (await import(
    pathToFileURL(path.join(folder, 'validators.js')).href
  )) as { eventValidators: { [event: string]: StandardSchemaV1 } };
  return { contract, eventSchemas, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

interface ExampleGroup {
  readonly name: string;
  readonly examples: Record<string, unknown>[];
}

/**
 * The first published example of `event` that passes the generated schema. `push` has none today
 * (every example predates `repository.has_discussions`, now required), so the first one that passes
 * with that one field added is used, and the note says so.
 */
export function example(event: string, schemas: GitHubModule['eventSchemas']): Example {
  const groups = JSON.parse(
    fs.readFileSync(require.resolve('@octokit/webhooks-examples/api.github.com/index.json'), 'utf8'),
  ) as ExampleGroup[];
  const dot = event.indexOf('.');
  const header = dot === -1 ? event : event.slice(0, dot);
  const action = dot === -1 ? undefined : event.slice(dot + 1);
  const candidates = (groups.find((g) => g.name === header)?.examples ?? []).filter(
    (e) => e['action'] === action,
  );
  const schema = schemas[event];
  if (schema === undefined) throw new Error(`no schema for ${event}`);
  const valid = (value: unknown): boolean => {
    const result = schema['~standard'].validate(value);
    if (result instanceof Promise) throw new Error('async schema');
    return result.issues === undefined;
  };
  const found = candidates.find(valid);
  if (found !== undefined) return { event, header, body: JSON.stringify(found) };
  for (const candidate of candidates) {
    const repository = candidate['repository'];
    if (typeof repository !== 'object' || repository === null) continue;
    const patched = { ...candidate, repository: { has_discussions: false, ...repository } };
    if (valid(patched)) {
      const note = 'published example + repository.has_discussions (now required)';
      return { event, header, body: JSON.stringify(patched), note };
    }
  }
  throw new Error(`no example of ${event} passes the generated schema`);
}
