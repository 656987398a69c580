/**
 * A Petstore customer's app: receives the Petstore's webhooks with the SDK generated from the
 * contract (`createReceiver`: signature, timestamp window, schema, dedupe on the message id), and
 * remembers what it handled. `POST /fail` makes it answer 503 until `POST /recover` (to watch retries
 * and dead letters in the portal).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sqliteStore } from '@gen-webhooks/runtime';
import { createReceiver, type EventName } from '../../generated/petstore-openapi/index.js';

export interface Handled {
  readonly type: EventName;
  readonly id: string;
  readonly petId?: number;
}

export interface Customer {
  readonly url: string;
  /** Where the Petstore should deliver. */
  readonly webhookUrl: string;
  /** The endpoint's signing secret, as the Petstore showed it once at registration. */
  useSecret(secret: string): void;
  readonly handled: Handled[];
  close(): Promise<void>;
}

export async function startCustomer(
  options: { port?: number; log?: (line: string) => void } = {},
): Promise<Customer> {
  const log = options.log ?? console.log;
  const handled: Handled[] = [];
  const store = sqliteStore(':memory:');
  let receive: http.RequestListener | undefined;
  let failing = false;
  const note = (type: EventName, id: string, petId?: number) => {
    handled.push({ type, id, ...(petId !== undefined ? { petId } : {}) });
    log(`customer ← ${type} ${id}`);
  };

  const server = http.createServer((req, res) => {
    if (req.url === '/received' && req.method === 'GET') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: handled }));
    } else if ((req.url === '/fail' || req.url === '/recover') && req.method === 'POST') {
      failing = req.url === '/fail';
      res.end(failing ? 'failing' : 'recovered');
    } else if (req.url === '/webhooks/petstore' && req.method === 'POST' && receive && !failing) {
      receive(req, res);
    } else if (req.url === '/webhooks/petstore' && req.method === 'POST') {
      req.resume();
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end(failing ? 'customer app is failing on purpose (POST /recover)' : 'not configured yet');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 3001, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    webhookUrl: `${url}/webhooks/petstore`,
    handled,
    useSecret(secret) {
      const receiver = createReceiver({
        secret,
        store,
        exhaustive: true,
        handlers: {
          'pet.adopted': ({ id, data }) => note('pet.adopted', id, data.petId),
          'pet.status_changed': ({ id, data }) => note('pet.status_changed', id, data.petId),
          'order.created': ({ id }) => note('order.created', id),
          'order.completed': ({ id }) => note('order.completed', id),
          'payment.succeeded': ({ id }) => note('payment.succeeded', id),
          'payment.failed': ({ id }) => note('payment.failed', id),
        },
      });
      receive = receiver.node();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    },
  };
}
