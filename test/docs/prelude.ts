/**
 * The names a ```ts fragment block may use without declaring them: what the surrounding code of a
 * reader's application has (a request, the Petstore contract, an outbox, a receiver, drivers). It is
 * written as a global declaration file beside the fragments when they are type-checked (never run);
 * a fragment's own declarations shadow these.
 */
export const FRAGMENT_PRELUDE = `
type Runtime = typeof import('@gen-webhooks/runtime');
type Petstore = typeof import('./generated/petstore-openapi/index.js');
type Events = import('./generated/petstore-openapi/types.js').Events;

// node:http
declare const req: import('node:http').IncomingMessage;
declare const res: import('node:http').ServerResponse;
declare const rawBody: Buffer;
// the generated Petstore module and what an application built on it holds
declare const contract: Petstore['contract'];
declare const receiver: import('@gen-webhooks/runtime').Receiver<Events>;
declare const sender: import('@gen-webhooks/runtime').Sender<Events>;
declare const outbox: import('@gen-webhooks/runtime').Outbox;
declare const adoption: import('./generated/petstore-openapi/types.js').PetAdoptedPayload;
declare const authorize: import('@gen-webhooks/runtime').Authorize;
declare const url: string;
declare const messageId: string;
declare const deliveryId: string;
declare const endpointId: string;
// drivers
declare const db: import('better-sqlite3').Database;
declare const pool: import('pg').Pool;
declare const redis: import('ioredis').Redis;
// the application's own services
declare const sessions: { verify(authorization: string | null): Promise<{ accountId: string } | null> };
declare const metrics: { observe(value: number): void };
declare const alerts: { notify(message: string): void };
declare function notifyCustomer(endpoint: unknown, reason: string): void;
`;
