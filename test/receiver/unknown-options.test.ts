/**
 * No option is silently ignored: every factory refuses an unknown key (a JavaScript caller or a cast
 * past the types) with `invalid_config` naming it, and a renamed one with its replacement.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { expressHandler } from '../../runtime/adapters/express.js';
import { fastifyWebhook } from '../../runtime/adapters/fastify.js';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { createSender as createWebSender } from '../../runtime/deliver/sender-web.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { isWebhookError } from '../../runtime/errors.js';
import { unsafeAllowAnyone } from '../../runtime/manage/authorize.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { createManagementHandler } from '../../runtime/manage/handler.js';
import { createPortalHandler } from '../../runtime/portal/handler.js';
import { createPortalLink } from '../../runtime/portal/link.js';
import { plaidKeyFetcher } from '../../runtime/presets/plaid.js';
import { providerContract } from '../../runtime/presets/provider-contract.js';
import { createPresetScheme, providers } from '../../runtime/presets/registry.js';
import { providers as webProviders } from '../../runtime/presets/registry-web.js';
import type { PresetName } from '../../runtime/presets/types.js';
import { ackFastQueue } from '../../runtime/receive/ack-fast-mode.js';
import { createParser, createReceiver } from '../../runtime/receive/receiver-node.js';
import { startRetention } from '../../runtime/retention.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { postgresSchema, postgresStore } from '../../runtime/stores/postgres.js';
import { redisStore } from '../../runtime/stores/redis.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import { checkTypeTests, directives } from '../types/expect-errors.js';
import { repoRoot } from '../types/typecheck.js';
import { petstore, SECRET } from './fixtures.js';

const base = { secret: SECRET, store: memoryStore() };
const receiver = () => createReceiver(petstore, base);
const sender = () => createSender(petstore, {});
// biome-ignore lint/suspicious/noExplicitAny: the point is to get past the types, as JavaScript does
type Loose = any;

// Never connected: the option checks run before a connection is needed.
const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none' });
afterAll(() => pool.end());
const outbox = () => sqliteOutbox(':memory:');
const secretKey = { id: 'k1', key: randomBytes(32).toString('base64') };
const portalKey = 'a portal key of at least thirty-two bytes';
const portal = { outbox: {} as Loose, contract: petstore, key: portalKey };
const link = { key: portalKey, tenant: 't1', portalUrl: 'https://api.example.com/webhooks/portal' };
const manage = { outbox: {} as Loose, authorize: unsafeAllowAnyone() };
const retention = { outbox: { prune: async () => ({}) as Loose }, keepAttempts: 1, keepMessages: 1 };
const schemeOptions = { secret: 'a-secret-of-sorts', secretIn: { query: 'code' } };
const presetNames = Object.keys(providers) as PresetName[];

type Factory = readonly [string, (extra: object) => unknown, (key: string) => string];

/** [name, call with extra options merged in, option path as reported] */
const factories: ReadonlyArray<Factory> = [
  ['createReceiver', (x) => createReceiver(petstore, { ...base, ...x } as Loose), (k) => k],
  ['createParser', (x) => createParser(petstore, { secret: SECRET, ...x } as Loose), (k) => k],
  ['ackFastQueue', (x) => ackFastQueue(x as Loose), (k) => k],
  ['ackFastQueue', (x) => ackFastQueue({ worker: x as Loose }), (k) => `worker.${k}`],
  ['receiver.node', (x) => receiver().node(x as Loose), (k) => k],
  ['expressHandler', (x) => expressHandler(receiver(), x as Loose), (k) => k],
  ['fastifyWebhook', (x) => fastifyWebhook(receiver(), { path: '/h', ...x } as Loose), (k) => k],
  ['createSender', (x) => createSender(petstore, x as Loose), (k) => k],
  ['createSender', (x) => createSender(petstore, { urlPolicy: x } as Loose), (k) => `urlPolicy.${k}`],
  ['createSender', (x) => createWebSender(petstore, x as Loose), (k) => k],
  ['send', (x) => sender().send('pet.adopted' as never, {} as never, x as Loose), (k) => k],
  [
    'sendNow',
    (x) =>
      sender().sendNow('pet.adopted' as never, {} as never, { url: 'https://x', secret: 's', ...x } as Loose),
    (k) => k,
  ],
  [
    'sendNow',
    (x) =>
      sender().sendNow(
        'pet.adopted' as never,
        {} as never,
        {
          url: 'https://x',
          secret: 's',
          retry: { kind: 'list', delays: [], ...x },
        } as Loose,
      ),
    (k) => `retry.${k}`,
  ],
  ['createWorker', (x) => createWorker({ outbox: {} as Loose, ...x } as Loose), (k) => k],
  [
    'createWorker',
    (x) => createWorker({ outbox: {} as Loose, urlPolicy: x } as Loose),
    (k) => `urlPolicy.${k}`,
  ],
  [
    'createWorker',
    (x) =>
      createWorker({
        outbox: {} as Loose,
        retry: { kind: 'list', delays: [1], jitter: { kind: 'none', ...x } },
      } as Loose),
    (k) => `retry.jitter.${k}`,
  ],
  ['worker.stop', (x) => createWorker({ outbox: outbox() }).stop(x as Loose), (k) => k],
  ['receiver.close', (x) => receiver().close(x as Loose), (k) => k],
  ['retention.stop', (x) => startRetention(retention).stop(x as Loose), (k) => k],
  ['startRetention', (x) => startRetention({ ...retention, ...x } as Loose), (k) => k],
  ['sqliteStore', (x) => sqliteStore(':memory:', x as Loose), (k) => k],
  ['postgresStore', (x) => postgresStore(pool, x as Loose), (k) => k],
  ['postgresSchema', (x) => postgresSchema(x as Loose), (k) => k],
  ['redisStore', (x) => redisStore({} as Loose, x as Loose), (k) => k],
  ['sqliteOutbox', (x) => sqliteOutbox(':memory:', x as Loose), (k) => k],
  [
    'sqliteOutbox',
    (x) => sqliteOutbox(':memory:', { secretKeys: [secretKey, { ...secretKey, id: 'k2', ...x }] } as Loose),
    (k) => `secretKeys[1].${k}`,
  ],
  ['postgresOutbox', (x) => postgresOutbox(pool, x as Loose), (k) => k],
  [
    'postgresOutbox',
    (x) => postgresOutbox(pool, { secretKeys: [{ ...secretKey, ...x }] } as Loose),
    (k) => `secretKeys[0].${k}`,
  ],
  ['createEndpointManager', (x) => createEndpointManager({ outbox: {} as Loose, ...x } as Loose), (k) => k],
  [
    'createEndpointManager',
    (x) => createEndpointManager({ outbox: {} as Loose, urlPolicy: x } as Loose),
    (k) => `urlPolicy.${k}`,
  ],
  [
    'createEndpointManager',
    (x) => createEndpointManager({ outbox: {} as Loose, verification: { mode: 'event', ...x } } as Loose),
    (k) => `verification.${k}`,
  ],
  ['createManagementHandler', (x) => createManagementHandler({ ...manage, ...x } as Loose), (k) => k],
  [
    'createManagementHandler',
    (x) => createManagementHandler({ ...manage, urlPolicy: x } as Loose),
    (k) => `urlPolicy.${k}`,
  ],
  ['createPortalHandler', (x) => createPortalHandler({ ...portal, ...x } as Loose), (k) => k],
  [
    'createPortalHandler',
    (x) =>
      createPortalHandler({
        ...portal,
        verification: { mode: 'cloudevents', origin: 'webhooks.example.com', ...x },
      } as Loose),
    (k) => `verification.${k}`,
  ],
  ['createPortalLink', (x) => createPortalLink({ ...link, ...x } as Loose), (k) => k],
  ...presetNames.flatMap((name): Factory[] => [
    [name, (x) => providers[name].scheme({ ...schemeOptions, ...x }), (k) => k],
    // On Web Crypto, Twilio's scheme is a refusal whatever its options (it needs node:querystring).
    ...(name === 'twilio'
      ? []
      : [
          [
            name,
            (x: object) => webProviders[name].scheme({ ...schemeOptions, ...x }),
            (k: string) => k,
          ] as const,
        ]),
  ]),
  ['github', (x) => createPresetScheme('github', { ...schemeOptions, ...x }), (k) => k],
  [
    'azure-event-grid',
    (x) =>
      providers['azure-event-grid'].scheme({ ...schemeOptions, secretIn: { query: 'code', ...x } } as Loose),
    (k) => `secretIn.${k}`,
  ],
  [
    'github',
    (x) => createReceiver(providerContract('github', {}), { ...base, preset: x } as Loose),
    (k) => k,
  ],
  ['plaidKeyFetcher', (x) => plaidKeyFetcher({ clientId: 'c', secret: 's', ...x } as Loose), (k) => k],
  ['providerContract', (x) => providerContract('github', {}, x as Loose), (k) => k],
];

async function configError(
  call: () => unknown,
): Promise<import('../../runtime/errors.js').InvalidConfigDetails & { message: string }> {
  try {
    await call();
  } catch (error) {
    if (isWebhookError(error, 'invalid_config')) return { ...error.details, message: error.message };
    throw error;
  }
  throw new Error('no error thrown');
}

describe('unknown option keys are invalid_config', () => {
  it.each(factories.map(([name, call, path], i) => [`${i}: ${name}`, name, call, path] as const))(
    '%s refuses an unknown key, naming it',
    async (_label, name, call, path) => {
      const e = await configError(() => call({ bogus: 'blue' }));
      expect(e.message).toBe(`${name}: unknown option \`${path('bogus')}\``);
      expect(e.option).toBe(path('bogus'));
      expect(e.replacement).toBeUndefined();
      expect(Array.isArray(e.expected)).toBe(true);
    },
  );

  it.each([
    ['mode', { mode: 'inline' }, "`ackFast: false` for `mode: 'inline'`"],
    ['mode', { mode: 'ack-fast' }, '`ackFast: ackFastQueue()`'],
    ['queue', { queue: {} }, '`ackFast: ackFastQueue({ queue })`'],
    ['worker', { worker: { pollMs: 10 } }, '`ackFast: ackFastQueue({ worker })`'],
  ])('createReceiver names the replacement of the renamed `%s`', async (key, extra, replacement) => {
    const e = await configError(() => createReceiver(petstore, { ...base, ...extra } as Loose));
    expect(e.option).toBe(key);
    expect(e.replacement).toContain(replacement);
    expect(e.message).toContain(`unknown option \`${key}\` (renamed: use `);
    expect(e.message).toContain(replacement);
  });

  it('known keys pass, an undefined value included', () => {
    expect(() => createReceiver(petstore, { ...base, ackFast: false, logger: undefined })).not.toThrow();
    expect(() => receiver().node({ bodyTimeoutMs: 1000 })).not.toThrow();
    expect(() => createSender(petstore, { urlPolicy: { allowHttpHosts: ['localhost'] } })).not.toThrow();
  });

  it('a verification object takes the keys of its own mode only', async () => {
    const e = await configError(() =>
      createEndpointManager({
        outbox: {} as Loose,
        verification: { mode: 'event', origin: 'webhooks.example.com' } as Loose,
      }),
    );
    expect(e.option).toBe('verification.origin');
  });

  it('the stores, outboxes, manager, portal, retention and presets take their known keys', async () => {
    const options = { table: 'custom_idempotency' };
    const stores = [
      sqliteStore(':memory:', { ...options, synchronous: 'full' }),
      postgresStore(pool, { ...options, schema: 'public', autoMigrate: false }),
    ];
    expect(postgresSchema({ ...options, schema: 'public' })).toContain('custom_idempotency');
    expect(redisStore({} as Loose, { prefix: 'p:', ttlMs: 1000 }).ttlMs).toBe(1000);
    const outboxes = [
      sqliteOutbox(':memory:', { prefix: 'x_', tenancy: 'multi', secretKeys: [secretKey] }),
      postgresOutbox(pool, {
        schema: 'public',
        prefix: 'x_',
        tenancy: 'single',
        secretKeys: [secretKey],
        preparedStatements: false,
      }),
    ];
    const single = sqliteOutbox(':memory:');
    const managerOptions = {
      outbox: single,
      contract: petstore,
      urlPolicy: { allowHttpHosts: ['localhost'] },
      resolveOnRegister: false,
      rotationOverlapMs: 1000,
      verification: { mode: 'cloudevents', origin: 'webhooks.example.com', requestRate: 60, timeoutMs: 500 },
    } as const;
    expect(createEndpointManager({ ...managerOptions, tenant: 't1' }).tenant).toBe('t1');
    expect(
      createManagementHandler({ ...managerOptions, authorize: unsafeAllowAnyone(), basePath: '/h' }),
    ).toBeTypeOf('function');
    expect(
      createPortalHandler({ ...managerOptions, key: portalKey, appName: 'Pets', sessionTtlMs: 1000 }),
    ).toBeTypeOf('function');
    expect(createPortalLink({ ...link, ttlMs: 1000, now: () => 0 })).toContain('/open?token=');
    const schedule = startRetention({ ...retention, intervalMs: 60_000, batchSize: 10, pauseMs: 0 });
    expect(await schedule.stop({ timeoutMs: 100 })).toEqual({ finished: true });
    expect(await createWorker({ outbox: single }).stop({ timeoutMs: 100 })).toEqual({
      drained: 0,
      released: 0,
    });
    expect(await receiver().close({ timeoutMs: 100 })).toEqual({ drained: 0, released: 0 });
    expect(providers.github.scheme({ secret: 's', legacySha1: true, tolerance: 60 }).name).toBe('github');
    expect(providerContract('github', {}, { name: 'gh', version: '1' }).name).toBe('gh');
    for (const closable of [...stores, ...outboxes, single]) await closable.close();
  });
});

describe('unknown option keys are type errors (test/types/unknown-options.test-d.ts)', () => {
  const file = path.join(repoRoot, 'test/types/unknown-options.test-d.ts');
  const result = checkTypeTests(file);

  it('compiles, every @ts-expect-error needed', () => {
    expect(result.diagnostics).toEqual([]);
  });

  it.each(directives(file).map((d) => [d.line, d] as const))(
    'line %i: the directive is met by the error it names',
    (_line, directive) => {
      expect(directive.code).toBeDefined();
      const codes = (result.uncovered.get(directive.line) ?? []).map((e) => e.code);
      expect(codes).toContain(directive.code);
    },
  );
});
