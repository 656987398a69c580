/**
 * How long this process's main thread waited for a CPU (runnable, not running), from Linux's
 * /proc/<pid>/task/<pid>/schedstat. On a machine shared with other work, a latency sample includes
 * time slices the scheduler gave to other processes; subtracting this thread's run-queue wait over
 * the sample leaves what the code itself cost (its own CPU, and I/O or locks it waited on).
 * Undefined where the file does not exist (not Linux, or no schedstats).
 */
import fs from 'node:fs';

const file = `/proc/${process.pid}/task/${process.pid}/schedstat`;

/** Milliseconds the main thread has waited in the run queue so far, or undefined. */
export function runQueueWaitMs(): number | undefined {
  try {
    const fields = fs.readFileSync(file, 'utf8').split(' ');
    const waited = Number(fields[1]);
    return Number.isFinite(waited) ? waited / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
