/**
 * No option is silently ignored: every factory refuses an unknown key (a JavaScript caller or a cast
 * past the types) with `invalid_config` naming it, and a renamed one with its replacement.
 */
import { describe, expect, it } from 'vitest';
import { expressHandler } from '../../runtime/adapters/express.js';
import { fastifyWebhook } from '../../runtime/adapters/fastify.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { createSender as createWebSender } from '../../runtime/deliver/sender-web.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { isWebhookError } from '../../runtime/errors.js';
import { ackFastQueue } from '../../runtime/receive/ack-fast-mode.js';
import { createParser, createReceiver } from '../../runtime/receive/receiver-node.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { petstore, SECRET } from './fixtures.js';

const base = { secret: SECRET, store: memoryStore() };
const receiver = () => createReceiver(petstore, base);
const sender = () => createSender(petstore, {});
// biome-ignore lint/suspicious/noExplicitAny: the point is to get past the types, as JavaScript does
type Loose = any;

/** [name, call with extra options merged in, option path as reported] */
const factories: ReadonlyArray<readonly [string, (extra: object) => unknown, (key: string) => string]> = [
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
      const e = await configError(() => call({ colour: 'blue' }));
      expect(e.message).toBe(`${name}: unknown option \`${path('colour')}\``);
      expect(e.option).toBe(path('colour'));
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
});
