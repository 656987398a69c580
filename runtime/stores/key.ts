/**
 * Store keys of bounded length, the same in every store. Event ids come from the sender and may be
 * any length; a PostgreSQL btree entry holds at most ~2.7 kB, so an id of a few kB failed every claim
 * and enqueue (503 on every retry: a poison event). Every store, not only PostgreSQL, keys a long
 * key by its digest, so moving between stores never changes which events count as duplicates.
 */
import { sha256Hex } from '../signing/sha256.js';

/** Keys up to this many UTF-8 bytes are stored as they are. */
export const MAX_KEY_BYTES = 200;

const encoder = new TextEncoder();

/** `key`, or `sha256:<hex of its UTF-8 bytes>` (71 bytes) when it is longer than MAX_KEY_BYTES. */
export function storeKey(key: string): string {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short keys (the usual case) skip the encoding.
  if (key.length * 3 <= MAX_KEY_BYTES) return key;
  const bytes = encoder.encode(key);
  return bytes.length <= MAX_KEY_BYTES ? key : `sha256:${sha256Hex(bytes)}`;
}
