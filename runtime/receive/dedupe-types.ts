/**
 * The store view and the ids the run paths and background completions share (types only: its own
 * file so `completion.ts` and `lease.ts` need not import `run-context.ts`, which imports them).
 */
import type { IdempotencyStore } from '../stores/types.js';

export interface Ids {
  readonly id: string;
  readonly type: string;
}

/** The store operations the run paths use (each bounded by the store deadline). */
export type DedupeStore = Pick<
  IdempotencyStore<unknown>,
  'claim' | 'complete' | 'extend' | 'release' | 'transaction'
>;
