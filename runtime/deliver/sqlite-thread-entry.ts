/**
 * The worker-thread side of `threadedSqliteOutbox`: opens its own connection with `sqliteOutbox`
 * and runs the calls the main thread posts, in batches. Completions of one batch share a commit (the
 * in-thread outbox groups them); a reply goes back only after its call settled, so a completion's
 * reply means it is committed. Replies settled in the same turn travel in one message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WebhookError } from '../errors.js';
import type { ClaimOptions } from './outbox.js';
import { sqliteOutbox } from './sqlite-outbox.js';
import {
  decodeComplete,
  encodeClaim,
  type ThreadCall,
  type ThreadError,
  type ThreadReply,
  type ThreadStart,
} from './sqlite-thread.js';

const METHODS: ReadonlySet<string> = new Set([
  'init',
  'createEndpoint',
  'getEndpoint',
  'listEndpoints',
  'deleteEndpoint',
  'rotateSecret',
  'enableEndpoint',
  'disableEndpoint',
  'enqueue',
  'claim',
  'complete',
  'release',
  'redeliver',
  'getDelivery',
  'listDeliveries',
  'listAttempts',
  'nextDueAt',
  'close',
]);

const toThreadError = (error: unknown): ThreadError => {
  if (error instanceof WebhookError) {
    return {
      webhook: true,
      code: error.code,
      message: error.message,
      status: error.status,
      details: error.details,
    };
  }
  const e = error as { name?: unknown; message?: unknown; code?: unknown };
  return {
    webhook: false,
    name: typeof e?.name === 'string' ? e.name : 'Error',
    message: typeof e?.message === 'string' ? e.message : String(error),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
  };
};

const port = parentPort;
if (port) {
  const { path, options } = workerData as ThreadStart;
  const outbox = sqliteOutbox(path, options);
  const call = outbox as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  let replies: ThreadReply[] = [];
  const flush = () => {
    const batch = replies;
    replies = [];
    port.postMessage(batch);
  };
  const reply = (r: ThreadReply) => {
    replies.push(r);
    if (replies.length === 1) setImmediate(flush);
  };
  const run = (c: ThreadCall) => {
    const [id, method, args] = c;
    if (!METHODS.has(method)) {
      reply([id, false, toThreadError(new WebhookError('invalid_argument', `unknown method ${method}`))]);
      return;
    }
    // `call[method]` is a method of `outbox` (no `this` needed: the outbox is a closure).
    let result: Promise<unknown>;
    try {
      // The per-delivery calls cross compactly (see encodeComplete / encodeClaim).
      if (method === 'complete') result = outbox.complete(decodeComplete(args[0] as unknown[]));
      else if (method === 'claim') result = outbox.claim(args[0] as ClaimOptions).then(encodeClaim);
      else result = (call[method] as (...a: unknown[]) => Promise<unknown>)(...args);
    } catch (error) {
      reply([id, false, toThreadError(error)]);
      return;
    }
    result.then(
      (value) => reply([id, true, value]),
      (error: unknown) => reply([id, false, toThreadError(error)]),
    );
  };
  port.on('message', (batch: ThreadCall[]) => {
    for (const c of batch) run(c);
  });
}
