/**
 * Redis idempotency store on ioredis. A claim is `SET key <lease> NX PX leaseMs` (one round trip in the
 * common case); when the key exists, a Lua script decides atomically between `duplicate`,
 * `in_progress` and taking over an expired lease. `release` is a Lua compare-and-delete, so only the
 * lease owner can release. `done` keys carry a Redis TTL (default 7 days, or a provider preset from
 * RETRY_WINDOWS), so there is nothing to clean up. Values embed their expiry so an injected clock sees
 * the same lease/TTL semantics as the SQL stores. No ack-fast queue: pair it with a SQL store's queue.
 */
import type { Cluster, Redis } from '../drivers/ioredis.js';
import { WebhookError } from '../errors.js';
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import { storeKey } from './key.js';
import type { IdempotencyStore } from './types.js';

export interface RedisStoreOptions {
  /** Key prefix. Default `webhook:idem:`. */
  readonly prefix?: string;
  /**
   * How long `done` keys live, e.g. `RETRY_WINDOWS.stripe`. Default: the receiver's `ttlMs`, else the
   * preset's retry window, else 7 days.
   */
  readonly ttlMs?: number;
}

const REDIS_STORE_KEYS = { prefix: true, ttlMs: true } as const satisfies KnownKeys<RedisStoreOptions>;

// Values: `i:<token>:<leaseExpiresAtMs>` while in flight, `d:<expiresAtMs>` when done.
const CLAIM_SCRIPT = `
local v = redis.call('GET', KEYS[1])
local now = tonumber(ARGV[3])
if v then
  local kind = string.sub(v, 1, 1)
  local expires = tonumber(string.match(v, ':(%d+)$'))
  if expires == nil or expires > now then
    if kind == 'd' then return 'duplicate' end
    return 'in_progress'
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 'claimed'
`;

const RELEASE_SCRIPT = `
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, string.len(ARGV[1])) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

const EXTEND_SCRIPT = `
local v = redis.call('GET', KEYS[1])
if not v or string.sub(v, 1, string.len(ARGV[1])) ~= ARGV[1] then return 0 end
local expires = tonumber(string.match(v, ':(%d+)$'))
if expires == nil or expires <= tonumber(ARGV[4]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`;

function storeError(operation: string, cause: unknown): WebhookError {
  return new WebhookError('store_error', `Redis store: ${operation} failed`, { cause });
}

function checkToken(token: string): void {
  // The token is embedded in the value between separators.
  if (token.includes(':'))
    throw new WebhookError('invalid_argument', 'Redis store: lease tokens must not contain ":"');
}

export function redisStore(client: Redis | Cluster, options: RedisStoreOptions = {}): IdempotencyStore {
  checkKnownOptions('redisStore', options, REDIS_STORE_KEYS);
  const prefix = options.prefix ?? 'webhook:idem:';
  const k = (key: string): string => prefix + storeKey(key);

  return {
    name: 'redis',
    // Only an explicit TTL overrides a preset's retry window in the receiver.
    ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
    async claim(key, { leaseMs, now, token }) {
      checkToken(token);
      const value = `i:${token}:${now + leaseMs}`;
      // PX keeps real-time expiry as the backstop; the embedded expiry serves injected clocks.
      const px = Math.max(1, Math.ceil(leaseMs));
      try {
        if ((await client.set(k(key), value, 'PX', px, 'NX')) === 'OK') return 'claimed';
        const result = await client.eval(CLAIM_SCRIPT, 1, k(key), value, String(px), String(now));
        if (result === 'claimed' || result === 'duplicate' || result === 'in_progress') return result;
        throw new Error(`unexpected script result ${String(result)}`);
      } catch (cause) {
        throw storeError('claim', cause);
      }
    },
    async extend(key, { leaseMs, now, token }) {
      checkToken(token);
      const px = Math.max(1, Math.ceil(leaseMs));
      try {
        const renewed = await client.eval(
          EXTEND_SCRIPT,
          1,
          k(key),
          `i:${token}:`,
          `i:${token}:${now + leaseMs}`,
          String(px),
          String(now),
        );
        return renewed === 1;
      } catch (cause) {
        throw storeError('extend', cause);
      }
    },
    async complete(key, { ttlMs, now }) {
      try {
        await client.set(k(key), `d:${now + ttlMs}`, 'PX', Math.max(1, Math.ceil(ttlMs)));
      } catch (cause) {
        throw storeError('complete', cause);
      }
    },
    async release(key, { token }) {
      checkToken(token);
      try {
        await client.eval(RELEASE_SCRIPT, 1, k(key), `i:${token}:`);
      } catch (cause) {
        throw storeError('release', cause);
      }
    },
    async cleanup() {
      // Redis expires keys itself (PX on every write).
      return 0;
    },
  };
}
