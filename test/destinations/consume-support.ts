/** Shared helpers of the broker consumer tests: a receiver over an in-memory SQLite store, waiting. */
import http from 'node:http';
import Database from 'better-sqlite3';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import type { AckFast } from '../../runtime/receive/types.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import { petstore, SECRET } from '../receiver/fixtures.js';
import { type Listening, listen } from '../receiver/http.js';

export const AMQP_URL = process.env['AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';
export const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';

/** A name unique to this test run (queues, streams, subjects). */
export const unique = (prefix: string): string =>
  `gw_consume_${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 7)}`;

/** A receiver whose `pet.adopted` handler is `handler`. */
export function petReceiver(
  handler: (event: { id: string; data: { petId: string } }) => unknown,
  more: { ackFast?: AckFast } = {},
) {
  return createReceiver(petstore, {
    secret: SECRET,
    store: sqliteStore(new Database(':memory:')),
    // Failed handlers are the point of these tests: keep the console quiet.
    logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
    handlers: { 'pet.adopted': (event) => handler(event) },
    ...more,
  });
}

/** Two HTTP receivers (ack-fast onto one broker queue), as behind a load balancer. */
export async function ackFastServers(ackFast: () => AckFast): Promise<Listening[]> {
  const servers: Listening[] = [];
  for (let i = 0; i < 2; i++) {
    const receiver = petReceiver(
      () => {
        throw new Error('the HTTP side never runs handlers');
      },
      { ackFast: ackFast() },
    );
    servers.push(await listen(http.createServer(receiver.node())));
  }
  return servers;
}

/** Polls `check` until it holds (throws after `ms`). */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
