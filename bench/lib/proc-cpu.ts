/**
 * CPU accounting from /proc for the PostgreSQL rows of bench:send (Linux; elsewhere every figure is 0).
 *
 * - `procCpuSeconds(pid)`: user + system CPU of a process, all its threads (/proc/<pid>/stat).
 * - `machineTicks()`: idle, stolen and total CPU ticks of the whole machine (/proc/stat).
 * - `PgBackendCpu`: the CPU of the PostgreSQL server processes a run used, split by who they serve:
 *   the backends of each pool are told apart by the `application_name` the bench gives that pool;
 *   the server's own processes (postmaster, walwriter, checkpointer, background writer, autovacuum…:
 *   every `backend_type` other than `client backend`) are "background"; client backends of anyone
 *   else (another test run on the same server) are left out. Backends are found in
 *   pg_stat_activity at the start and on every `sample()` (pools open connections lazily): one first
 *   seen mid-run counts from its birth, one gone mid-run keeps the ticks last read.
 */
import fs from 'node:fs';
import type pg from 'pg';

/** USER_HZ: the unit of /proc/<pid>/stat times (100 on every mainstream Linux build). */
const HZ = 100;

/** utime + stime ticks of `pid` (all threads), or undefined when it is gone or /proc is missing. */
function procTicks(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** Parent pid of `pid` (field 4 of /proc/<pid>/stat), or undefined. */
function parentPid(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system, all threads) of `pid`; 0 when unreadable. */
export function procCpuSeconds(pid: number | undefined): number {
  return pid === undefined ? 0 : (procTicks(pid) ?? 0) / HZ;
}

/** Idle (incl. iowait), stolen and total CPU ticks of the whole machine, all cores (zeros without /proc). */
export function machineTicks(): { idle: number; steal: number; total: number } {
  try {
    const fields = (fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] as string)
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already in user)
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return { idle: (fields[3] ?? 0) + (fields[4] ?? 0), steal: fields[7] ?? 0, total };
  } catch {
    return { idle: 0, steal: 0, total: 0 };
  }
}

interface Tracked {
  readonly label: string;
  readonly base: number;
  last: number;
}

export const BACKGROUND = 'background';

export class PgBackendCpu {
  private readonly tracked = new Map<number, Tracked>();
  private postmaster: number | undefined;

  /**
   * @param control the pool the sampler queries from (its own backend is labelled `control`)
   * @param labels  application_name → label (e.g. `gwb123-outbox` → `outbox`)
   */
  constructor(
    private readonly control: pg.Pool,
    private readonly labels: ReadonlyMap<string, string>,
  ) {}

  private async discover(first: boolean): Promise<void> {
    const { rows } = await this.control.query<{ pid: number; app: string | null; type: string | null }>(
      'SELECT pid, application_name AS app, backend_type AS type FROM pg_stat_activity',
    );
    if (this.postmaster === undefined && rows[0]) {
      this.postmaster = parentPid(rows[0].pid);
      if (this.postmaster !== undefined) this.track(this.postmaster, BACKGROUND, first);
    }
    for (const row of rows) {
      if (this.tracked.has(row.pid)) continue;
      const label =
        this.labels.get(row.app ?? '') ?? (row.type !== 'client backend' ? BACKGROUND : undefined);
      if (label !== undefined) this.track(row.pid, label, first);
    }
  }

  private track(pid: number, label: string, first: boolean): void {
    const now = procTicks(pid);
    if (now === undefined) return;
    // Present at the start: counts from now. Seen later: born during the run, counts from its birth.
    this.tracked.set(pid, { label, base: first ? now : 0, last: now });
  }

  private read(): void {
    for (const [pid, t] of this.tracked) {
      const now = procTicks(pid);
      if (now !== undefined) t.last = now;
    }
  }

  /** The start of the measured window. */
  async start(): Promise<void> {
    this.tracked.clear();
    await this.discover(true);
  }

  /** During the window: picks up new backends and records the ticks of every known one. */
  async sample(): Promise<void> {
    await this.discover(false);
    this.read();
  }

  /** The end of the window: CPU seconds per label (`background` for the server's own processes). */
  async stop(): Promise<Map<string, number>> {
    this.read();
    await this.discover(false);
    const out = new Map<string, number>();
    for (const t of this.tracked.values()) {
      out.set(t.label, (out.get(t.label) ?? 0) + (t.last - t.base) / HZ);
    }
    return out;
  }
}
