/**
 * `gen-webhooks mock-receiver`: an HTTP endpoint that misbehaves on purpose (failures, slow answers,
 * lost responses) and records every attempt per event id, so a sender's retry schedule, timeouts and
 * dead-lettering can be watched. `GET /__report` returns the report as JSON; `DELETE /__report` clears it.
 *
 * Per attempt, in order: the first `failFirst` attempts of an id fail; then a lost response with
 * probability `dropResponseRate` (the socket is destroyed after the body was read, so the sender cannot
 * know whether it was processed); then a failure with probability `failRate`; else 200. Every answer
 * (and every drop) waits `delayMs` first, which is how sender timeouts are exercised.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { identifyDelivery } from './delivery-identity.js';
import { listenLocal, readBodyCapped } from './local-server.js';
import { createStyle, formatMs, type ToolIo, writeJson } from './output.js';
import { printableDeep } from './printable.js';
import { seededRandom } from './random.js';

export interface MockReceiverOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default 127.0.0.1: a test tool should not listen on every interface. */
  readonly host?: string;
  /** Probability in [0, 1] that an attempt is answered with `status`. */
  readonly failRate?: number;
  /** Status of failed answers. Default 500. */
  readonly status?: number;
  /** `Retry-After` value sent with failed answers (seconds or an HTTP date), if any. */
  readonly retryAfter?: string;
  /** Wait before every answer, in milliseconds. */
  readonly delayMs?: number;
  /** Probability in [0, 1] that the connection is destroyed after the body was read. */
  readonly dropResponseRate?: number;
  /** The first N attempts of every event id fail. */
  readonly failFirst?: number;
  /** Seed of the PRNG behind the rates; the report prints it so a run can be repeated. */
  readonly seed?: number;
  /** Print one JSON line per attempt (and the report as JSON) instead of text. */
  readonly json?: boolean;
  /** Print nothing per attempt (the report is still available). */
  readonly quiet?: boolean;
  /** Bodies larger than this are answered 413. Default 10 MiB. */
  readonly maxBodyBytes?: number;
  /** Injectable for tests; `random` overrides `seed`. */
  readonly random?: () => number;
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export type AttemptOutcome = 'ok' | 'failed' | 'dropped' | 'abandoned';

export interface AttemptRecord {
  /** 1-based attempt number for this event id. */
  readonly attempt: number;
  /** Arrival time, ms since the epoch. */
  readonly at: number;
  /** Milliseconds since the previous attempt of the same id (absent for the first). */
  readonly gapMs?: number;
  readonly outcome: AttemptOutcome;
  /** Status answered (absent for dropped/abandoned). */
  readonly status?: number;
  readonly method: string;
  readonly path: string;
  readonly bytes: number;
}

export interface EventReport {
  readonly id: string;
  readonly idSource: string;
  readonly type?: string;
  readonly attempts: number;
  readonly delivered: boolean;
  readonly gapsMs: readonly number[];
  readonly history: readonly AttemptRecord[];
}

export interface MockReceiverReport {
  readonly startedAt: string;
  readonly seed: number;
  readonly settings: {
    readonly failRate: number;
    readonly status: number;
    readonly delayMs: number;
    readonly dropResponseRate: number;
    readonly failFirst: number;
  };
  readonly requests: number;
  readonly outcomes: { readonly [K in AttemptOutcome]: number };
  readonly events: readonly EventReport[];
}

export interface MockReceiver {
  readonly url: string;
  readonly port: number;
  report(): MockReceiverReport;
  /** Writes the report to the tool's stdout (text, or JSON with `json`). */
  printReport(): void;
  reset(): void;
  close(): Promise<void>;
}

interface EventState {
  readonly id: string;
  readonly idSource: string;
  type: string | undefined;
  readonly history: AttemptRecord[];
}

const REPORT_PATH = '/__report';

export async function startMockReceiver(options: MockReceiverOptions, io: ToolIo): Promise<MockReceiver> {
  const now = io.now ?? Date.now;
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const random = options.random ?? seededRandom(seed);
  const sleep = options.sleep ?? ((ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }));
  const settings = {
    failRate: options.failRate ?? 0,
    status: options.status ?? 500,
    delayMs: options.delayMs ?? 0,
    dropResponseRate: options.dropResponseRate ?? 0,
    failFirst: options.failFirst ?? 0,
  };
  const maxBodyBytes = options.maxBodyBytes ?? 10 * 1024 * 1024;
  const style = createStyle(io.stdout, io.env);
  const shutdown = new AbortController();
  let startedAt = now();
  let events = new Map<string, EventState>();

  const buildReport = (): MockReceiverReport => {
    const outcomes = { ok: 0, failed: 0, dropped: 0, abandoned: 0 };
    const list: EventReport[] = [];
    for (const state of events.values()) {
      for (const record of state.history) outcomes[record.outcome] += 1;
      const base = {
        id: state.id,
        idSource: state.idSource,
        attempts: state.history.length,
        delivered: state.history.some((r) => r.outcome === 'ok'),
        gapsMs: state.history.flatMap((r) => (r.gapMs === undefined ? [] : [r.gapMs])),
        history: [...state.history],
      };
      list.push(state.type === undefined ? base : { ...base, type: state.type });
    }
    const requests = outcomes.ok + outcomes.failed + outcomes.dropped + outcomes.abandoned;
    return { startedAt: new Date(startedAt).toISOString(), seed, settings, requests, outcomes, events: list };
  };

  const printAttempt = (rawId: string, rawType: string | undefined, rawRecord: AttemptRecord) => {
    if (options.quiet) return;
    if (options.json) {
      writeJson(io, {
        kind: 'attempt',
        id: rawId,
        type: rawType,
        ...rawRecord,
        at: new Date(rawRecord.at).toISOString(),
      });
      return;
    }
    // Id, type, method and path come from the request.
    const [id, type, record] = printableDeep([rawId, rawType, rawRecord] as const, { multiline: false });
    const outcome =
      record.outcome === 'ok'
        ? style.green(`${record.status} ok`)
        : record.outcome === 'failed'
          ? style.red(`${record.status} failed`)
          : style.yellow(record.outcome === 'dropped' ? 'dropped (no response)' : 'abandoned by sender');
    const gap =
      record.gapMs === undefined
        ? ''
        : style.dim(` +${formatMs(record.gapMs)} since attempt ${record.attempt - 1}`);
    io.stdout.write(
      `${style.dim(new Date(record.at).toISOString())} ${record.method} ${record.path} ${style.bold(id)}` +
        `${type ? ` ${style.cyan(type)}` : ''} attempt ${record.attempt} → ${outcome}${gap}\n`,
    );
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = req.url ?? '/';
    if (path.split('?')[0] === REPORT_PATH) {
      if (req.method === 'DELETE') {
        events = new Map();
        startedAt = now();
        res.writeHead(204).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(buildReport(), null, 2));
      return;
    }
    const arrived = now();
    const body = await readBodyCapped(req, res, maxBodyBytes);
    if (body === undefined) return;
    const identity = identifyDelivery(req.headers, body);
    let state = events.get(identity.id);
    if (!state) {
      state = { id: identity.id, idSource: identity.idSource, type: identity.type, history: [] };
      events.set(identity.id, state);
    }
    state.type ??= identity.type;
    const previous = state.history[state.history.length - 1];
    const attempt = state.history.length + 1;
    // Reserve the slot now so concurrent attempts of one id keep their arrival order.
    const index = state.history.length;
    const base = {
      attempt,
      at: arrived,
      ...(previous ? { gapMs: arrived - previous.at } : {}),
      method: req.method ?? 'POST',
      path,
      bytes: body.length,
    };
    let outcome: AttemptOutcome;
    if (attempt <= settings.failFirst) outcome = 'failed';
    else if (settings.dropResponseRate > 0 && random() < settings.dropResponseRate) outcome = 'dropped';
    else if (settings.failRate > 0 && random() < settings.failRate) outcome = 'failed';
    else outcome = 'ok';
    const status = outcome === 'failed' ? settings.status : 200;
    state.history[index] = { ...base, outcome, ...(outcome === 'dropped' ? {} : { status }) };

    // A sender that times out hangs up while we wait: record it the moment the connection closes.
    let hungUp = false;
    const current = state;
    res.on('close', () => {
      if (res.writableFinished || outcome === 'dropped') return;
      hungUp = true;
      current.history[index] = { ...base, outcome: 'abandoned' };
    });
    if (settings.delayMs > 0) {
      try {
        await sleep(settings.delayMs, shutdown.signal);
      } catch {
        // Shutting down: the socket is closed with the server.
      }
    }
    if (hungUp || res.destroyed || req.socket.destroyed) {
      outcome = 'abandoned';
      state.history[index] = { ...base, outcome };
    } else if (outcome === 'dropped') {
      req.socket.destroy();
    } else {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (outcome === 'failed' && options.retryAfter !== undefined)
        headers['retry-after'] = options.retryAfter;
      res.writeHead(status, headers);
      res.end(JSON.stringify(outcome === 'ok' ? { ok: true, attempt } : { error: 'mock failure', attempt }));
    }
    const record = state.history[index];
    if (record) printAttempt(identity.id, state.type, record);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
      }
    });
  });
  // A client that resets mid-request must not take the tool down.
  const { url, port } = await listenLocal(server, options.port, options.host);

  return {
    url,
    port,
    report: buildReport,
    printReport() {
      const report = buildReport();
      if (options.json) {
        writeJson(io, { kind: 'report', ...report });
        return;
      }
      io.stdout.write(formatReport(printableDeep(report, { multiline: false }), style));
    },
    reset() {
      events = new Map();
      startedAt = now();
    },
    close() {
      shutdown.abort();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function formatReport(report: MockReceiverReport, style: ReturnType<typeof createStyle>): string {
  const { outcomes } = report;
  const lines = [
    style.bold(
      `mock-receiver report: ${report.requests} request(s) for ${report.events.length} event(s) — ` +
        `${outcomes.ok} ok, ${outcomes.failed} failed, ${outcomes.dropped} dropped, ${outcomes.abandoned} abandoned`,
    ),
    style.dim(`seed ${report.seed} (repeat this run with --seed ${report.seed})`),
  ];
  for (const event of report.events) {
    const gaps = event.gapsMs.length > 0 ? ` gaps ${event.gapsMs.map(formatMs).join(', ')}` : '';
    const trail = event.history.map((r) => (r.status === undefined ? r.outcome : `${r.status}`)).join(' → ');
    const verdict = event.delivered ? style.green('delivered') : style.red('not delivered');
    lines.push(
      `  ${event.id}${event.type ? ` (${event.type})` : ''}: ${event.attempts} attempt(s), ${verdict}; ${trail};${gaps}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
