/**
 * In-memory store and queue. For tests and local experiments only: it forgets everything on restart
 * and is not shared between processes, so it cannot give exactly-once processing in production.
 */
import { batchSizeOf, inBatches } from './batches.js';
import { storeKey } from './key.js';
import type {
  ClaimOptions,
  ClaimResult,
  CleanupOptions,
  CompleteOptions,
  DequeueOptions,
  EventQueue,
  IdempotencyStore,
  QueuedEvent,
  ReleaseOptions,
} from './types.js';

interface Entry {
  state: 'inflight' | 'done';
  token: string | undefined;
  expiresAt: number;
}

interface QueueRow {
  seq: number;
  key: string;
  payload: string;
  status: 'pending' | 'failed';
  attempts: number;
  availableAt: number;
  lockedUntil: number;
  lastError: string | undefined;
}

let warned = false;

type Globals = { Deno?: unknown; process?: { env?: Record<string, string | undefined> } };

/**
 * Warns once, outside tests, where the environment can be read without asking: on Node and Bun. Deno
 * refuses (or prompts for) `--allow-env` on any read, and Workers have no `process`: no warning there.
 */
function warnOutsideTests(): void {
  const g = globalThis as Globals;
  const env = g.Deno === undefined ? g.process?.env : undefined;
  if (warned || env === undefined || env['NODE_ENV'] === 'test' || env['VITEST'] !== undefined) return;
  warned = true;
  console.warn(
    '[gen-webhooks] memoryStore() keeps idempotency keys in this process only: duplicates are not ' +
      'recognised after a restart or across instances. Use sqliteStore, postgresStore or redisStore in production.',
  );
}

export interface MemoryStore extends IdempotencyStore {
  readonly queue: EventQueue;
  extend(key: string, options: ClaimOptions): Promise<boolean>;
}

export function memoryStore(): MemoryStore {
  warnOutsideTests();
  const entries = new Map<string, Entry>();
  const rows = new Map<number, QueueRow>();
  let nextSeq = 1;

  const live = (key: string, now: number): Entry | undefined => {
    const entry = entries.get(key);
    if (entry === undefined || entry.expiresAt <= now) return undefined;
    return entry;
  };

  const queue: EventQueue = {
    async enqueue(id, payload, { now }) {
      const key = storeKey(id);
      for (const row of rows.values()) {
        if (row.key !== key) continue;
        if (row.status === 'pending') return false;
        // A dead-lettered key delivered again is queued afresh.
        Object.assign(row, { payload, status: 'pending', attempts: 0, availableAt: now, lockedUntil: 0 });
        row.lastError = undefined;
        return true;
      }
      const seq = nextSeq++;
      rows.set(seq, {
        seq,
        key,
        payload,
        status: 'pending',
        attempts: 0,
        availableAt: now,
        lockedUntil: 0,
        lastError: undefined,
      });
      return true;
    },
    async dequeue({ now, leaseMs, limit }: DequeueOptions) {
      const taken: QueuedEvent[] = [];
      for (const row of rows.values()) {
        if (taken.length >= limit) break;
        if (row.status !== 'pending' || row.availableAt > now || row.lockedUntil > now) continue;
        row.lockedUntil = now + leaseMs;
        row.attempts += 1;
        taken.push({ seq: String(row.seq), key: row.key, payload: row.payload, attempts: row.attempts });
      }
      return taken;
    },
    async extend(seq, { now, leaseMs, attempts }) {
      const row = rows.get(Number(seq));
      if (row?.status !== 'pending' || row.attempts !== attempts || row.lockedUntil === 0) return false;
      row.lockedUntil = now + leaseMs;
      return true;
    },
    async ack(seq) {
      rows.delete(Number(seq));
    },
    async retry(seq, { availableAt, error, countAttempt }) {
      const row = rows.get(Number(seq));
      if (row === undefined) return;
      row.availableAt = availableAt;
      row.lockedUntil = 0;
      row.lastError = error;
      if (countAttempt === false) row.attempts = Math.max(0, row.attempts - 1);
    },
    async fail(seq, { error }) {
      const row = rows.get(Number(seq));
      if (row === undefined) return;
      row.status = 'failed';
      row.lastError = error;
    },
    async counts() {
      let pending = 0;
      let failed = 0;
      for (const row of rows.values()) {
        if (row.status === 'pending') pending++;
        else failed++;
      }
      return { pending, failed };
    },
  };

  return {
    name: 'memory',
    queue,
    async claim(id: string, { leaseMs, now, token }: ClaimOptions): Promise<ClaimResult> {
      const key = storeKey(id);
      const entry = live(key, now);
      if (entry?.state === 'done') return 'duplicate';
      if (entry?.state === 'inflight') return 'in_progress';
      entries.set(key, { state: 'inflight', token, expiresAt: now + leaseMs });
      return 'claimed';
    },
    async extend(id: string, { leaseMs, now, token }: ClaimOptions) {
      const entry = live(storeKey(id), now);
      if (entry?.state !== 'inflight' || entry.token !== token) return false;
      entry.expiresAt = now + leaseMs;
      return true;
    },
    async complete(id: string, { ttlMs, now }: CompleteOptions) {
      entries.set(storeKey(id), { state: 'done', token: undefined, expiresAt: now + ttlMs });
    },
    async release(id: string, { token }: ReleaseOptions) {
      const key = storeKey(id);
      const entry = entries.get(key);
      if (entry?.state === 'inflight' && entry.token === token) entries.delete(key);
    },
    async cleanup(now: number, options?: CleanupOptions) {
      const size = batchSizeOf(options, 'memoryStore.cleanup');
      // Same shape as the SQL stores: `size` entries examined per turn, in insertion order.
      const keys = [...entries.keys()];
      let at = 0;
      return inBatches(options, async () => {
        let removed = 0;
        for (const key of keys.slice(at, at + size)) {
          const entry = entries.get(key);
          if (entry !== undefined && entry.expiresAt <= now) {
            entries.delete(key);
            removed++;
          }
        }
        at += size;
        return { removed, more: at < keys.length };
      });
    },
  };
}
