/**
 * One step of SQLite's incremental vacuum held to the time budget, shared by the dedupe store's
 * cleanup and the outbox prune: moving a page rewrites its parent and pointer-map pages too, so a
 * fixed page count can take far longer than the budget.
 */
import type { BetterSqlite3 } from '../drivers/better-sqlite3.js';
import { type BudgetedSize, budgetedSize } from './time-budget.js';

/** Pages freed per step at most: 1 MiB at the default page size. */
const VACUUM_STEP = 256;

/** The step sizer a vacuum run starts with (32 pages, growing while steps stay under budget). */
export function vacuumSizer(): BudgetedSize {
  return budgetedSize(VACUUM_STEP, { start: 32 });
}

/** Frees up to the sizer's pages; returns the free-list length before and after. */
export function vacuumStep(db: BetterSqlite3.Database, step: BudgetedSize): { free: number; left: number } {
  const free = Number(db.pragma('freelist_count', { simple: true }));
  if (free === 0) return { free, left: 0 };
  const started = performance.now();
  db.pragma(`incremental_vacuum(${Math.min(free, step.size)})`);
  step.took(performance.now() - started);
  return { free, left: Number(db.pragma('freelist_count', { simple: true })) };
}
