/**
 * The SQLite outbox with its database work in a worker thread. better-sqlite3 is synchronous: on
 * the main thread every claim and completion blocks the event loop that also runs the HTTP client.
 * Here a thread owns its own connection to the file (WAL) and runs `sqliteOutbox`; this side
 * implements `Outbox` by messaging it. Calls made in the same event-loop turn travel in one message
 * and replies come back batched, routed by id. A completion resolves only once the thread committed
 * it; if the thread dies, every waiting call rejects with `store_error` (the deliveries stay leased
 * and are retried when the lease ends) and the next call starts a new thread.
 *
 * `enqueue(message, { tx: db })` runs on the caller's own better-sqlite3 connection, here, inside the
 * caller's transaction: the thread's connection sees the message once the caller commits.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import { WebhookError, type WebhookErrorCode, type WebhookErrorDetails } from '../errors.js';
import type {
  AttemptResolution,
  ClaimedDelivery,
  CompleteInput,
  DisabledReason,
  Endpoint,
  Outbox,
} from './outbox.js';
import { type SqliteOutboxOptions, sqliteOutbox } from './sqlite-outbox.js';

/** Main → thread: `[id, method, args]`, several per message. */
export type ThreadCall = [id: number, method: string, args: unknown[]];
/** Thread → main: `[id, ok, value or ThreadError]`, several per message. */
export type ThreadReply = [id: number, ok: boolean, value: unknown];
export type ThreadError =
  | {
      readonly webhook: true;
      readonly code: WebhookErrorCode;
      readonly message: string;
      readonly status: number;
      readonly details: WebhookErrorDetails;
    }
  | { readonly webhook: false; readonly name: string; readonly message: string; readonly code?: string };
export interface ThreadStart {
  readonly path: string;
  readonly options: SqliteOutboxOptions;
}

const fromThread = (e: ThreadError): Error => {
  if (e.webhook) return new WebhookError(e.code, e.message, { status: e.status, details: e.details });
  // Driver errors (SqliteError: SQLITE_BUSY, …) keep their name and code.
  const error = new Error(e.message);
  error.name = e.name;
  if (e.code !== undefined) (error as Error & { code: string }).code = e.code;
  return error;
};

/**
 * The thread needs only what the in-thread outbox reads to fence a completion or release (id, lease
 * owner, attempt, message and endpoint ids): the body, headers and secrets are not copied back.
 */
const fenceOf = (d: ClaimedDelivery): ClaimedDelivery =>
  ({
    id: d.id,
    messageId: d.messageId,
    leaseOwner: d.leaseOwner,
    attempt: d.attempt,
    leaseUntil: d.leaseUntil,
    endpoint: { id: d.endpoint.id },
  }) as ClaimedDelivery;

/**
 * complete() runs once per delivery: its input crosses as a flat array of primitives (copying one is
 * cheaper than copying nested objects with their property names), rebuilt by `decodeComplete`.
 */
export const encodeComplete = (input: CompleteInput): unknown[] => {
  const { delivery: d, attempt: a, resolution: r } = input;
  return [
    d.id,
    d.messageId,
    d.endpoint.id,
    d.leaseOwner,
    d.attempt,
    d.leaseUntil,
    input.now,
    a.startedAt,
    a.durationMs,
    a.statusCode,
    a.errorCode,
    a.error,
    a.responseSnippet,
    a.outcome,
    r.kind,
    r.kind === 'retry' ? r.nextAttemptAt : undefined,
    r.kind === 'succeeded' ? undefined : r.error,
    input.disable,
    input.disableAfterFailures,
  ];
};

export const decodeComplete = (f: unknown[]): CompleteInput => {
  const kind = f[14] as AttemptResolution['kind'];
  const resolution: AttemptResolution =
    kind === 'succeeded'
      ? { kind }
      : kind === 'retry'
        ? { kind, nextAttemptAt: f[15] as number, error: f[16] as string }
        : { kind, error: f[16] as string };
  return {
    delivery: fenceOf({
      id: f[0],
      messageId: f[1],
      endpoint: { id: f[2] },
      leaseOwner: f[3],
      attempt: f[4],
      leaseUntil: f[5],
    } as ClaimedDelivery),
    now: f[6] as number,
    attempt: {
      startedAt: f[7] as number,
      durationMs: f[8] as number,
      statusCode: f[9] as number | undefined,
      errorCode: f[10] as string | undefined,
      error: f[11] as string | undefined,
      responseSnippet: f[12] as string | undefined,
      outcome: f[13] as 'succeeded' | 'failed',
    },
    resolution,
    ...(f[17] !== undefined ? { disable: f[17] as DisabledReason } : {}),
    ...(f[18] !== undefined ? { disableAfterFailures: f[18] as number } : {}),
  };
};

/** claim() results cross as rows of primitives plus each endpoint once (`decodeClaim` rebuilds them). */
export const encodeClaim = (claimed: ClaimedDelivery[]): [Endpoint[], unknown[][]] => {
  const endpoints: Endpoint[] = [];
  const index = new Map<string, number>();
  const rows = claimed.map((d) => {
    let i = index.get(d.endpoint.id);
    if (i === undefined) {
      i = endpoints.push(d.endpoint) - 1;
      index.set(d.endpoint.id, i);
    }
    const headers = d.headers;
    let empty = true;
    for (const _ in headers) {
      empty = false;
      break;
    }
    return [
      d.id,
      d.messageId,
      d.eventType,
      d.body,
      empty ? undefined : headers,
      d.attempt,
      d.leaseOwner,
      d.leaseUntil,
      d.messageCreatedAt,
      i,
    ];
  });
  return [endpoints, rows];
};

const decodeClaim = ([endpoints, rows]: [Endpoint[], unknown[][]]): ClaimedDelivery[] =>
  rows.map((r) => ({
    id: r[0] as string,
    messageId: r[1] as string,
    eventType: r[2] as string,
    body: r[3] as string,
    headers: (r[4] as Record<string, string> | undefined) ?? {},
    attempt: r[5] as number,
    leaseOwner: r[6] as string,
    leaseUntil: r[7] as number,
    messageCreatedAt: r[8] as number,
    endpoint: endpoints[r[9] as number] as Endpoint,
  }));

const threads = new WeakMap<Outbox, () => Worker | undefined>();
/** The running thread of a threaded outbox (tests kill it to check that nothing hangs). */
export function outboxThread(outbox: Outbox): Worker | undefined {
  return threads.get(outbox)?.();
}

/** tsx's ESM `register` API (its CommonJS build cannot register the ESM hooks from a worker). */
function tsxRegisterUrl(): string | undefined {
  try {
    const pkgFile = createRequire(import.meta.url).resolve('tsx/package.json');
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as {
      exports?: Record<string, { import?: { default?: string } | string }>;
    };
    const api = pkg.exports?.['./esm/api'];
    const file = typeof api === 'object' ? api.import : undefined;
    const rel = typeof file === 'object' ? file.default : file;
    return rel ? pathToFileURL(join(dirname(pkgFile), rel)).href : undefined;
  } catch {
    // No tsx: the runtime may strip types itself (node --experimental-strip-types, a loader in execArgv).
    return undefined;
  }
}

function startThread(start: ThreadStart): Worker {
  // From the built package this file is .js and so is the entry. From the sources (vitest, tsx) it is
  // .ts: the thread registers tsx first when it can (a worker does not inherit vitest's transform).
  const source = import.meta.url.endsWith('.ts');
  const entry = new URL(`./sqlite-thread-entry.${source ? 'ts' : 'js'}`, import.meta.url);
  if (!source) return new Worker(entry, { workerData: start });
  const tsx = tsxRegisterUrl();
  const code = `(async () => {
    ${tsx ? `(await import(${JSON.stringify(tsx)})).register();` : ''}
    await import(${JSON.stringify(entry.href)});
  })();`;
  return new Worker(code, { eval: true, workerData: start });
}

/**
 * `sqliteOutbox(path, options)` with its database work in a worker thread (own connection, same
 * file). Takes a path, not a `Database`: a connection cannot move between threads.
 */
export function threadedSqliteOutbox(path: string, options: SqliteOutboxOptions = {}): Outbox {
  if (typeof path !== 'string' || path === '') {
    throw new WebhookError('invalid_config', 'threadedSqliteOutbox: expected the path of the database file');
  }
  const p = options.prefix ?? 'webhook_';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(p)) {
    throw new WebhookError('invalid_config', `sqliteOutbox: prefix "${p}" must be an SQL identifier`);
  }
  const start: ThreadStart = { path, options: { ...(options.prefix ? { prefix: options.prefix } : {}) } };

  interface Waiting {
    readonly resolve: (value: unknown) => void;
    readonly reject: (error: unknown) => void;
  }
  let worker: Worker | undefined;
  let queue: ThreadCall[] = [];
  const waiting = new Map<number, Waiting>();
  let nextId = 1;
  let drained: (() => void)[] = [];

  const settled = () => {
    if (waiting.size > 0) return;
    // Idle: the thread must not keep the process alive (an unclosed in-thread outbox does not).
    worker?.unref();
    const fns = drained;
    drained = [];
    for (const fn of fns) fn();
  };

  const fail = (w: Worker, error: WebhookError) => {
    if (w !== worker) return;
    worker = undefined;
    queue = [];
    const all = [...waiting.values()];
    waiting.clear();
    for (const c of all) c.reject(error);
    settled();
  };

  const spawn = (): Worker => {
    const w = startThread(start);
    w.on('message', (replies: ThreadReply[]) => {
      for (const [id, ok, value] of replies) {
        const c = waiting.get(id);
        if (!c) continue;
        waiting.delete(id);
        if (ok) c.resolve(value);
        else c.reject(fromThread(value as ThreadError));
      }
      settled();
    });
    w.on('error', (error) =>
      fail(
        w,
        new WebhookError('store_error', `SQLite outbox thread failed: ${error.message}`, { cause: error }),
      ),
    );
    w.on('exit', (code) =>
      fail(w, new WebhookError('store_error', `SQLite outbox thread exited (code ${code})`)),
    );
    return w;
  };

  const flush = () => {
    const batch = queue;
    queue = [];
    if (batch.length === 0 || !worker) return;
    try {
      worker.postMessage(batch);
    } catch {
      // Something in the batch cannot be copied: send the others, reject only the culprits.
      for (const c of batch) {
        try {
          worker.postMessage([c]);
        } catch (error) {
          const w = waiting.get(c[0]);
          waiting.delete(c[0]);
          w?.reject(
            new WebhookError(
              'invalid_argument',
              `SQLite outbox: cannot pass ${c[1]}() arguments to the thread`,
              {
                cause: error,
              },
            ),
          );
        }
      }
      settled();
    }
  };

  const call = <T>(method: string, args: unknown[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      worker ??= spawn();
      const id = nextId++;
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      if (waiting.size === 1) worker.ref();
      queue.push([id, method, args]);
      // One message per turn: completions of the responses read in one poll phase go together.
      if (queue.length === 1) setImmediate(flush);
    });

  // The caller's own connection, for enqueue inside the caller's transaction.
  const local = new WeakMap<object, Outbox>();

  const outbox: Outbox = {
    kind: 'sqlite',
    init: () => call('init', []),
    createEndpoint: (input, now) => call('createEndpoint', [input, now]),
    getEndpoint: (id) => call('getEndpoint', [id]),
    listEndpoints: () => call('listEndpoints', []),
    deleteEndpoint: (id) => call('deleteEndpoint', [id]),
    rotateSecret: (id, secret, now, overlapUntil) => call('rotateSecret', [id, secret, now, overlapUntil]),
    enableEndpoint: (id, now) => call('enableEndpoint', [id, now]),
    disableEndpoint: (id, reason, now) => call('disableEndpoint', [id, reason, now]),
    async enqueue(message, enqueueOptions = {}) {
      const { tx, ...rest } = enqueueOptions;
      if (tx === undefined) return call('enqueue', [message, rest]);
      const db = tx as BetterSqlite3.Database;
      if (!db || typeof db.prepare !== 'function' || typeof db.transaction !== 'function') {
        throw new WebhookError(
          'invalid_argument',
          'send({ tx }): expected the better-sqlite3 Database of the transaction',
        );
      }
      let mine = local.get(db);
      if (!mine) {
        mine = sqliteOutbox(db, options);
        local.set(db, mine);
      }
      return mine.enqueue(message, { ...rest, tx: db });
    },
    claim: (claimOptions) => call<[Endpoint[], unknown[][]]>('claim', [claimOptions]).then(decodeClaim),
    complete: (input: CompleteInput) => call('complete', [encodeComplete(input)]),
    release: (delivery, now) => call('release', [fenceOf(delivery), now]),
    redeliver: (target, now) => call('redeliver', [target, now]),
    getDelivery: (id) => call('getDelivery', [id]),
    listDeliveries: (listOptions) => call('listDeliveries', [listOptions ?? {}]),
    listAttempts: (listOptions) => call('listAttempts', [listOptions]),
    nextDueAt: () => call('nextDueAt', []),
    async close() {
      const w = worker;
      if (!w) return;
      // Drain: every call already made settles (completions commit) before the connection closes.
      if (waiting.size > 0) await new Promise<void>((resolve) => drained.push(resolve));
      if (worker !== w) return; // the thread died meanwhile: nothing left to close
      try {
        await call('close', []);
      } finally {
        if (worker === w) worker = undefined;
        await w.terminate();
      }
    },
  };
  threads.set(outbox, () => worker);
  return outbox;
}
