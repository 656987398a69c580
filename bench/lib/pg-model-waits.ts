/**
 * What the workers' PostgreSQL backends are doing, sampled every `intervalMs` during a run
 * (bench/pg-model.bench.ts): pg_stat_activity's state and wait event per backend, the locks they wait
 * for (pg_locks, not granted) by lock type, and the machine's runnable tasks (/proc/stat
 * procs_running), on a connection of its own.
 *
 * A backend that is active with no wait event is on a CPU or waiting for one: PostgreSQL cannot tell
 * those apart, the kernel can. So the sampler also reads /proc/<pid>/schedstat (time on a CPU, time
 * runnable but waiting for one) for the worker processes and these backends over the window: with
 * more runnable processes than cores, run-queue time grows without any lock involved.
 */
import fs from 'node:fs';
import pg from 'pg';

export interface WaitSummary {
  readonly samples: number;
  readonly intervalMs: number;
  /** Backend-samples per state: `CPU` (active, no wait event), `Lock:tuple`, `LWLock:WALWrite`, `idle`… */
  readonly events: ReadonlyMap<string, number>;
  /** Not-granted pg_locks rows seen, by locktype. */
  readonly notGranted: ReadonlyMap<string, number>;
  /** Share of samples with at least one backend waiting on a heavyweight lock (wait_event_type Lock). */
  readonly lockShare: number;
  /** … on a lightweight lock (LWLock: buffer content, WAL insertion, lock manager…). */
  readonly lwlockShare: number;
  readonly meanBackends: number;
  readonly meanRunnable: number;
  /** Run-queue wait and CPU time over the window, seconds: the worker processes, their backends. */
  readonly sched: { workersWait: number; workersCpu: number; backendsWait: number; backendsCpu: number };
}

/** [on-CPU ns, run-queue wait ns] of a process, or undefined. */
function schedstat(pid: number): [number, number] | undefined {
  try {
    const [run, wait] = fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    return [run as number, wait as number];
  } catch {
    return undefined;
  }
}

function runnable(): number {
  try {
    const m = /procs_running (\d+)/.exec(fs.readFileSync('/proc/stat', 'utf8'));
    return m ? Number(m[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

class Sched {
  private readonly base = new Map<number, [number, number]>();
  private readonly last = new Map<number, [number, number]>();
  /** Counts from now (or from 0 if `born`, a process started inside the window). */
  see(pid: number, born = false): void {
    if (this.base.has(pid)) return;
    const s = schedstat(pid);
    if (s) this.base.set(pid, born ? [0, 0] : s);
  }
  read(): void {
    for (const pid of this.base.keys()) {
      const s = schedstat(pid);
      if (s) this.last.set(pid, s);
    }
  }
  /** [CPU, wait] seconds since `see`. */
  total(): [number, number] {
    let cpu = 0;
    let wait = 0;
    for (const [pid, b] of this.base) {
      const l = this.last.get(pid) ?? b;
      cpu += (l[0] - b[0]) / 1e9;
      wait += (l[1] - b[1]) / 1e9;
    }
    return [cpu, wait];
  }
}

const SAMPLE = `SELECT a.pid, a.state, a.wait_event_type AS type, a.wait_event AS event,
    (SELECT string_agg(l.locktype, ',') FROM pg_locks l WHERE l.pid = a.pid AND NOT l.granted) AS waiting
  FROM pg_stat_activity a WHERE a.application_name = $1`;

export class WaitSampler {
  private client: pg.Client | undefined;
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly workers = new Sched();
  private readonly backends = new Sched();
  private readonly events = new Map<string, number>();
  private readonly notGranted = new Map<string, number>();
  private samples = 0;
  private lockSamples = 0;
  private lwlockSamples = 0;
  private backendSamples = 0;
  private runnableSum = 0;
  private runnableSamples = 0;
  /** Statements the sampler issued (the counters fallback takes them off the database's). */
  queries = 0;

  constructor(
    private readonly connectionString: string,
    private readonly applicationName: string,
    private readonly intervalMs: number,
  ) {}

  async open(): Promise<void> {
    this.client = new pg.Client({
      connectionString: this.connectionString,
      application_name: 'gwb-model-sampler',
    });
    await this.client.connect();
  }

  private async sample(first: boolean): Promise<void> {
    const { rows } = await (this.client as pg.Client).query<Record<string, string | null>>(SAMPLE, [
      this.applicationName,
    ]);
    this.queries++;
    let lock = false;
    let lw = false;
    for (const r of rows) {
      this.backends.see(Number(r.pid), !first);
      const key = r.state !== 'active' ? (r.state ?? 'unknown') : r.type ? `${r.type}:${r.event}` : 'CPU';
      this.events.set(key, (this.events.get(key) ?? 0) + 1);
      if (r.type === 'Lock') lock = true;
      if (r.type === 'LWLock') lw = true;
      for (const t of r.waiting?.split(',') ?? []) this.notGranted.set(t, (this.notGranted.get(t) ?? 0) + 1);
    }
    this.samples++;
    this.backendSamples += rows.length;
    if (lock) this.lockSamples++;
    if (lw) this.lwlockSamples++;
    const n = runnable();
    if (Number.isFinite(n)) {
      this.runnableSum += n;
      this.runnableSamples++;
    }
  }

  /** The start of the window: `workerPids` are the worker processes. */
  async start(workerPids: readonly (number | undefined)[]): Promise<void> {
    for (const pid of workerPids) if (pid !== undefined) this.workers.see(pid);
    await this.sample(true);
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const t0 = performance.now();
        await this.sample(false);
        const rest = this.intervalMs - (performance.now() - t0);
        if (rest > 0) await new Promise((r) => setTimeout(r, rest));
      }
    })();
  }

  async stop(): Promise<WaitSummary> {
    this.running = false;
    await this.loop;
    this.workers.read();
    this.backends.read();
    const [workersCpu, workersWait] = this.workers.total();
    const [backendsCpu, backendsWait] = this.backends.total();
    return {
      samples: this.samples,
      intervalMs: this.intervalMs,
      events: this.events,
      notGranted: this.notGranted,
      lockShare: this.lockSamples / this.samples,
      lwlockShare: this.lwlockSamples / this.samples,
      meanBackends: this.backendSamples / this.samples,
      meanRunnable: this.runnableSum / this.runnableSamples,
      sched: { workersWait, workersCpu, backendsWait, backendsCpu },
    };
  }

  async close(): Promise<void> {
    await this.client?.end();
  }
}
