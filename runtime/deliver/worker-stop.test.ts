import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isWebhookError } from '../errors.js';
import { sqliteOutbox } from './sqlite-outbox.js';
import { createWorker } from './worker.js';

const LOCAL = { allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] };
const servers: http.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

/** A receiver that answers after `delayMs` (or never); resolves `seen` on the first request. */
async function receiver(delayMs: number | undefined) {
  let seen!: () => void;
  const first = new Promise<void>((r) => (seen = r));
  const server = http.createServer((req, res) => {
    req.resume();
    seen();
    if (delayMs !== undefined) setTimeout(() => res.end('ok'), delayMs);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/h`, first };
}

async function setup(delayMs: number | undefined) {
  const target = await receiver(delayMs);
  const outbox = sqliteOutbox(new Database(':memory:'));
  await outbox.createEndpoint(
    { url: target.url, events: ['*'], secret: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=' },
    0,
  );
  await outbox.enqueue({ id: 'msg_1', eventType: 'e', body: '{}', headers: {}, createdAt: Date.now() });
  const worker = createWorker({ outbox, urlPolicy: LOCAL, timeoutMs: 10_000, leaseMs: 30_000 });
  worker.start();
  await target.first;
  return { outbox, worker };
}

describe('worker.stop({ timeoutMs })', () => {
  it('at the deadline aborts the attempt and releases its lease, uncounted (no attempt row, not dead)', async () => {
    const { outbox, worker } = await setup(undefined);
    expect(await worker.stop({ timeoutMs: 50 })).toEqual({ drained: 0, released: 1 });
    const [d] = await outbox.listDeliveries({});
    expect(d).toMatchObject({ status: 'pending', attempts: 0 });
    expect(d?.leaseOwner).toBeUndefined();
    expect(await outbox.listAttempts({ deliveryId: d?.id as string })).toEqual([]);
  });

  it('waits for an attempt that ends before the deadline and records its verdict', async () => {
    const { outbox, worker } = await setup(100);
    expect(await worker.stop({ timeoutMs: 5000 })).toEqual({ drained: 1, released: 0 });
    const [d] = await outbox.listDeliveries({});
    expect(d).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('refuses a deadline that is not a number of ms ≥ 0', async () => {
    const worker = createWorker({ outbox: sqliteOutbox(new Database(':memory:')) });
    const error = await worker.stop({ timeoutMs: -1 }).catch((e: unknown) => e);
    expect(isWebhookError(error, 'invalid_config')).toBe(true);
    expect(await worker.stop()).toEqual({ drained: 0, released: 0 });
  });
});
