/**
 * GitHub end to end: generate the typed module from `@octokit/openapi-webhooks`, type-check a consumer
 * (handlers keyed `issues.opened` get the narrowed payload type), then sign real example payloads from
 * `@octokit/webhooks-examples` with the GitHub preset and check each reaches the right typed handler.
 *
 * The output goes to `test/.tmp/<unique>/generated/` (inside the repo so `zod` and the tsconfig paths
 * resolve; `generated/` is ignored by git and biome) and is removed afterwards.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../generator/index.js';
import type { Contract, EventMapBase } from '../../runtime/contract.js';
import { providers } from '../../runtime/presets/index.js';
import type { Receiver, ReceiverOptions } from '../../runtime/receive/index.js';
import { memoryStore } from '../../runtime/stores/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const spec = path.join(repoRoot, 'node_modules/@octokit/openapi-webhooks/generated/api.github.com.json');
const examplesFile = path.join(repoRoot, 'node_modules/@octokit/webhooks-examples/api.github.com/index.json');
const secret = 'github-typed-test-secret';

interface ExampleGroup {
  readonly name: string;
  readonly examples: readonly Record<string, unknown>[];
}

interface GeneratedModule {
  readonly contract: Contract<EventMapBase>;
  readonly createReceiver: (options: ReceiverOptions<EventMapBase>) => Receiver<EventMapBase>;
}

const CONSUMER = `
import { memoryStore } from '@gen-webhooks/runtime';
import { createReceiver, type Events } from './api-github-com/index.js';

export const receiver = createReceiver({
  secret: 'x',
  store: memoryStore(),
  handlers: {
    'issues.opened': (event) => {
      const type: 'issues.opened' = event.type;
      const action: 'opened' = event.data.action;
      const title: string = event.data.issue.title;
      const number: number = event.data.issue.number;
      // @ts-expect-error an issues.opened payload has no \`pusher\` (that is push)
      void event.data.pusher;
      return [type, action, title, number];
    },
    push: (event) => {
      const ref: string = event.data.ref;
      const after: string = event.data.after;
      // @ts-expect-error a push payload has no \`issue\`
      void event.data.issue;
      return [ref, after];
    },
    'pull_request.closed': (event) => {
      const merged: boolean | null = event.data.pull_request.merged;
      // @ts-expect-error \`action\` is narrowed to 'closed'
      const opened: 'opened' = event.data.action;
      return [merged, opened];
    },
    // @ts-expect-error not an event of the GitHub contract
    'issues.exploded': () => undefined,
  },
});

// @ts-expect-error the event map is keyed by '<event>.<action>'
export type Missing = Events['issues'];
export type Opened = Events['issues.opened'];
`;

let dir: string;
let out: string;
let generatedEvents: readonly string[];

beforeAll(async () => {
  mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
  dir = mkdtempSync(path.join(repoRoot, 'test/.tmp/presets-github-'));
  out = path.join(dir, 'generated');
  const result = await generate({ inputs: [spec], out, cwd: repoRoot });
  generatedEvents = result.contracts[0]?.events ?? [];
  writeFileSync(path.join(out, 'consumer.ts'), CONSUMER);
}, 120_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('typed GitHub module generated from @octokit/openapi-webhooks', () => {
  it('generates one contract with the GitHub preset and <event>.<action> names', () => {
    expect(generatedEvents.length).toBeGreaterThan(200);
    expect(generatedEvents).toEqual(
      expect.arrayContaining(['issues.opened', 'push', 'ping', 'pull_request.closed']),
    );
  });

  it('type-checks a consumer whose handlers get narrowed payload types', () => {
    const configText = JSON.stringify({
      extends: path.join(repoRoot, 'tsconfig.json'),
      compilerOptions: { noEmit: true, skipLibCheck: true, incremental: false },
      include: [],
      files: ['consumer.ts'],
    });
    const configFile = path.join(out, 'tsconfig.json');
    writeFileSync(configFile, configText);
    const parsed = ts.getParsedCommandLineOfConfigFile(
      configFile,
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
          throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
        },
      },
    );
    if (parsed === undefined) throw new Error('tsconfig did not parse');
    expect(parsed.fileNames).toEqual([path.join(out, 'consumer.ts')]);
    const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
    // The generated types really are part of the check (an unresolved import would make them `any`).
    expect(program.getSourceFile(path.join(out, 'api-github-com/types.ts'))).toBeDefined();
    const diagnostics = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const where = diagnostic.file
        ? `${path.relative(out, diagnostic.file.fileName)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}`
        : '';
      return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
    // Every @ts-expect-error above is used (an unused one is itself an error), and nothing else fails.
    expect(diagnostics).toEqual([]);
  }, 180_000);

  it('routes signed real example payloads to the handler of their event', async () => {
    const mod = (await import(
      pathToFileURL(path.join(out, 'api-github-com/index.ts')).href
    )) as GeneratedModule;
    const groups = JSON.parse(readFileSync(examplesFile, 'utf8')) as ExampleGroup[];
    const seen: { event: string; id: string; data: unknown }[] = [];
    const handlers = Object.fromEntries(
      Object.keys(mod.contract.events).map((event) => [
        event,
        (received: { id: string; data: unknown }) => {
          seen.push({ event, id: received.id, data: received.data });
        },
      ]),
    );
    // Many published examples predate today's schema (e.g. `homepage: ""` fails `format: uri`), so
    // routing is checked for all of them with validation reported, not enforced.
    const receiver = mod.createReceiver({ secret, store: memoryStore(), validation: 'report', handlers });
    const scheme = providers.github.scheme({ secret });
    let delivered = 0;
    let ignored = 0;
    for (const group of groups) {
      for (const [index, example] of group.examples.entries()) {
        const action = typeof example['action'] === 'string' ? example['action'] : undefined;
        // `<event>.<action>` when the contract has it, else the action-less event (repository_dispatch
        // carries the caller's own `action`), else nothing: not a contract event.
        const withAction = action === undefined ? undefined : `${group.name}.${action}`;
        const expected =
          withAction !== undefined && withAction in mod.contract.events ? withAction : group.name;
        const body = JSON.stringify(example);
        const id = `${group.name}-${index}`;
        const headers = {
          ...(await scheme.sign({ id, timestamp: 0, body })),
          'X-GitHub-Event': group.name,
          'content-type': 'application/json',
        };
        const result = await receiver.handle({ headers, body });
        expect(result.status, `${expected}: ${result.body}`).toBe(200);
        if (expected in mod.contract.events) {
          expect(result.outcome).toBe('processed');
          expect(seen.at(-1)).toEqual({ event: expected, id, data: example });
          delivered++;
        } else {
          // Not a contract event: answered 2xx (so GitHub does not retry) and ignored.
          expect(result.outcome).toBe('ignored');
          ignored++;
        }
      }
    }
    expect(delivered).toBeGreaterThan(300);
    expect(ignored).toBe(0);
    expect(new Set(seen.map((s) => s.event)).size).toBeGreaterThan(100);
  }, 120_000);

  it('accepts schema-valid examples under strict validation and rejects tampered ones', async () => {
    const mod = (await import(
      pathToFileURL(path.join(out, 'api-github-com/index.ts')).href
    )) as GeneratedModule;
    const groups = JSON.parse(readFileSync(examplesFile, 'utf8')) as ExampleGroup[];
    const find = (name: string, action?: string) => {
      const example = groups
        .find((group) => group.name === name)
        ?.examples.find((candidate) => candidate['action'] === action);
      if (example === undefined) throw new Error(`no example for ${name}.${action}`);
      return example;
    };
    const picks = [
      ['issues', 'opened'],
      ['ping', undefined],
      ['star', 'created'],
      ['pull_request', 'closed'],
      ['workflow_job', 'completed'],
    ] as const;
    const got: string[] = [];
    const receiver = mod.createReceiver({
      secret,
      store: memoryStore(),
      validation: 'strict',
      handlers: Object.fromEntries(
        picks.map(([name, action]) => [action ? `${name}.${action}` : name, () => got.push(name)]),
      ),
    });
    const scheme = providers.github.scheme({ secret });
    for (const [name, action] of picks) {
      const body = JSON.stringify(find(name, action));
      const headers = {
        ...(await scheme.sign({ id: `strict-${name}`, timestamp: 0, body })),
        'x-github-event': name,
      };
      const result = await receiver.handle({ headers, body });
      expect(result.status, result.body).toBe(200);
      const forged = await receiver.handle({ headers, body: body.replace('"', ' "') });
      expect(forged.status).toBe(401);
    }
    expect(got).toEqual(picks.map(([name]) => name));
    // A payload that breaks the schema is a 400 with a JSON pointer, after a valid signature.
    const broken = JSON.stringify({ ...find('issues', 'opened'), issue: { number: 'one' } });
    const headers = {
      ...(await scheme.sign({ id: 'broken', timestamp: 0, body: broken })),
      'x-github-event': 'issues',
    };
    const rejected = await receiver.handle({ headers, body: broken });
    expect(rejected.status).toBe(400);
    expect(JSON.parse(rejected.body)).toMatchObject({ error: { code: 'invalid_payload' } });
  }, 120_000);
});
