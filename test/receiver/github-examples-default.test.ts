/**
 * The receiver generated from GitHub's published description (@octokit/openapi-webhooks), built with
 * only `secret`, `store` and `handlers`, accepts every one of GitHub's published example payloads
 * (@octokit/webhooks-examples) over real HTTP and runs the handler of its event — though about a
 * third of them break GitHub's own schema. Under the old `strict` default those were answered 400,
 * which makes GitHub retry, then disable the hook.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { generate } from '../../generator/generate.js';
import type { StandardSchemaV1 } from '../../runtime/contract.js';
import { providers } from '../../runtime/presets/index.js';
import type { Receiver } from '../../runtime/receive/types.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { repoRoot } from '../types/typecheck.js';
import { listen, post } from './http.js';

const require = createRequire(import.meta.url);
const spec = require.resolve('@octokit/openapi-webhooks/generated/api.github.com.json');
const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'github-default-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Example {
  /** `X-GitHub-Event` */
  readonly name: string;
  /** The contract event: `<name>.<action>`, or `<name>` for an event without (declared) actions. */
  readonly event: string;
  readonly body: string;
}

function allExamples(events: ReadonlySet<string>): Example[] {
  const groups = JSON.parse(
    readFileSync(require.resolve('@octokit/webhooks-examples/api.github.com/index.json'), 'utf8'),
  ) as { name: string; examples: Record<string, unknown>[] }[];
  return groups.flatMap((group) =>
    group.examples.map((example) => {
      const action = example['action'];
      // An action that is free-form (repository_dispatch's `event_type`) selects no event of its own.
      const event =
        typeof action === 'string' && events.has(`${group.name}.${action}`)
          ? `${group.name}.${action}`
          : group.name;
      return { name: group.name, event, body: JSON.stringify(example) };
    }),
  );
}

describe("the generated GitHub receiver with default options on GitHub's published examples", async () => {
  const generated = await generate({ inputs: [spec], out: dir, cwd: repoRoot });
  const folder = path.join(dir, generated.contracts[0]?.name ?? '');
  const { createReceiver } = (await import(pathToFileURL(path.join(folder, 'receiver.ts')).href)) as {
    createReceiver: (options: Record<string, unknown>) => Receiver<never>;
  };
  const { eventValidators } = (await import(pathToFileURL(path.join(folder, 'validators.js')).href)) as {
    eventValidators: Record<string, StandardSchemaV1>;
  };
  const examples = allExamples(new Set(Object.keys(eventValidators)));

  it('answers 2xx to all of them and dispatches each to the handler of its event and action', async () => {
    expect(examples).toHaveLength(329);
    expect(examples.filter((x) => eventValidators[x.event] === undefined)).toEqual([]);
    // The premise: a good part of them break GitHub's own schema (122 of 329 when this was written).
    const invalid = examples.filter((x) => {
      const schema = eventValidators[x.event] as StandardSchemaV1;
      const result = schema['~standard'].validate(JSON.parse(x.body)) as StandardSchemaV1.Result<unknown>;
      return result.issues !== undefined;
    });
    expect(invalid.length).toBeGreaterThan(50);

    const reached = new Map<string, { type: string; issues: number }>();
    const handlers = Object.fromEntries(
      Object.keys(eventValidators).map((event) => [
        event,
        (e: { id: string; type: string; issues: readonly unknown[] }) => {
          reached.set(e.id, { type: e.type, issues: e.issues.length });
        },
      ]),
    );
    const secret = 'github-examples-default-secret';
    // The default logger is the console: its warnings are counted (and kept off the test output).
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const receiver = createReceiver({ secret, store: memoryStore(), handlers });
    const server = await listen(http.createServer(receiver.node()));
    const scheme = providers.github.scheme({ secret });
    const failed: string[] = [];
    let warnings: string[] = [];
    try {
      for (const [i, x] of examples.entries()) {
        const id = `gh-default-${i}`;
        const headers = {
          'content-type': 'application/json',
          'x-github-event': x.name,
          ...(await scheme.sign({ id, timestamp: 0, body: x.body })),
        };
        const answer = await post(server.url, { headers, body: x.body });
        if (answer.status < 200 || answer.status > 299)
          failed.push(`${x.event} ${answer.status} ${answer.body}`);
        const got = reached.get(id);
        if (got?.type !== x.event) failed.push(`${x.event}: reached ${got?.type ?? 'no handler'}`);
      }
    } finally {
      warnings = warn.mock.calls.map((call) => String((call[1] as { type?: unknown })['type']));
      warn.mockRestore();
      await server.close();
      await receiver.stop();
    }
    expect(failed).toEqual([]);
    expect(reached.size).toBe(329);
    // The invalid ones reached their handler with their issues, and were reported (once per type).
    const withIssues = [...reached.values()].filter((r) => r.issues > 0);
    expect(withIssues).toHaveLength(invalid.length);
    expect(new Set(warnings)).toEqual(new Set(invalid.map((x) => x.event)));
    expect(warnings).toHaveLength(new Set(warnings).size);
  }, 300_000);
});
