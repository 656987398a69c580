/**
 * `gen-webhooks outbox stats | list | redeliver | purge`: the dead-letter tooling. Finds what failed
 * (counts, dead letters by endpoint, filtered listings across endpoints and tenants) and replays it,
 * against the SQLite file or the PostgreSQL database a sender writes to. See docs/sender.md, "Dead
 * letters".
 */
import type { DeliveryStatus } from '@gen-webhooks/runtime';
import { booleanFlag, type ParsedArgs, parseToolArgs } from './args.js';
import { filterOf, openOptions, statusFlag } from './outbox-args.js';
import { openOutboxAdmin } from './outbox-open.js';
import { deliveryJson, printDeliveries, printStats, statsJson } from './outbox-report.js';
import { runTool, type ToolIo, writeJson } from './output.js';
import { usageError } from './usage.js';

const NAME = 'outbox';
const FINISHED: readonly DeliveryStatus[] = ['dead', 'succeeded'];
const MAX_LIMIT = 1_000_000;

export const OUTBOX_OPTIONS = {
  db: { type: 'string' },
  schema: { type: 'string' },
  prefix: { type: 'string' },
  status: { type: 'string' },
  endpoint: { type: 'string' },
  tenant: { type: 'string' },
  event: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  before: { type: 'string' },
  limit: { type: 'string' },
  'dry-run': { type: 'boolean' },
  yes: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

export const OUTBOX_HELP = `Usage: gen-webhooks outbox <stats | list | redeliver | purge> [options]

Find and replay what failed, in a sender's outbox: the SQLite file of sqliteOutbox() or the
PostgreSQL database of postgresOutbox().

  stats       Deliveries by status, endpoints, the oldest pending delivery, dead letters by endpoint
  list        Deliveries across endpoints and tenants, newest first (every status unless --status)
  redeliver   Queue finished deliveries again with a fresh attempt budget (default --status dead);
              the workers deliver them. The attempt history is kept.
  purge       Delete finished deliveries with their attempts (default --status dead), and messages
              left without deliveries. A dry run unless --yes.

Where:
  --db <file | url>     The SQLite file, or a postgres:// URL (default: $DATABASE_URL)
  --schema <name>       PostgreSQL schema (default public)
  --prefix <prefix>     Table prefix (default webhook_)

Which deliveries (list, redeliver, purge):
  --status <status>     pending, delivering, succeeded or dead (redeliver, purge: succeeded or dead)
  --endpoint <id>       Of one endpoint
  --tenant <tenant>     Of one tenant
  --event <type>        Of one event type
  --since <time>        Finished (unfinished: created) at or after <time>: an ISO 8601 date or
                        date-time, or an age back from now (30m, 24h, 7d)
  --until <time>        … before <time> (purge: also --before)
  --limit <n>           At most n (list: default 50; redeliver: every match)

  --dry-run             redeliver: list what would be queued and change nothing
  --yes                 purge: delete (without it, purge only counts)
  --json                One JSON object on stdout
  -h, --help            Show this help

Exit codes: 0 done, 2 bad arguments or the outbox could not be opened.`;

export function outboxCommand(argv: readonly string[], io: ToolIo): Promise<number> {
  const json = argv.includes('--json');
  return runTool(NAME, io, json, async () => {
    const args = parseToolArgs(NAME, argv, OUTBOX_OPTIONS);
    const [action, ...extra] = args.positionals;
    if (action === undefined) throw usageError(NAME, 'say what to do: stats, list, redeliver or purge');
    if (!['stats', 'list', 'redeliver', 'purge'].includes(action)) {
      throw usageError(NAME, `unknown action ${JSON.stringify(action)} (stats, list, redeliver or purge)`);
    }
    if (extra.length > 0) throw usageError(NAME, `unexpected argument ${JSON.stringify(extra[0])}`);
    const cmd = `${NAME} ${action}`;
    // Errors from here on name the action: `gen-webhooks outbox redeliver: …`.
    return runTool(cmd, io, json, () => runAction(action, cmd, args, io, json));
  });
}

async function runAction(
  action: string,
  cmd: string,
  args: ParsedArgs,
  io: ToolIo,
  json: boolean,
): Promise<number> {
  const now = (io.now ?? Date.now)();
  if (action === 'purge' && args.values.limit !== undefined) throw usageError(cmd, 'purge takes no --limit');
  const filter =
    action === 'stats'
      ? undefined
      : action === 'list'
        ? filterOf(cmd, args, now, statusFlag(cmd, args), { fallback: 50, max: MAX_LIMIT })
        : filterOf(cmd, args, now, statusFlag(cmd, args, FINISHED) ?? 'dead', { max: MAX_LIMIT });
  const admin = await openOutboxAdmin(cmd, openOptions(cmd, args, io.env));
  try {
    if (action === 'stats') {
      const tenant = typeof args.values.tenant === 'string' ? args.values.tenant : undefined;
      const stats = await admin.stats(tenant);
      if (json) writeJson(io, { ok: true, outbox: admin.label, ...statsJson(stats) });
      else printStats(io, `${admin.kind} ${admin.label}`, stats, now);
      return 0;
    }
    if (!filter) return 2;
    if (action === 'list') {
      const rows = await admin.list(filter);
      if (json) writeJson(io, { ok: true, deliveries: rows.map(deliveryJson) });
      else printDeliveries(io, rows, `${rows.length} ${rows.length === 1 ? 'delivery' : 'deliveries'}`);
      return 0;
    }
    if (action === 'redeliver') {
      const rows = await admin.list(filter);
      const dryRun = booleanFlag(args, 'dry-run');
      let redelivered = 0;
      if (!dryRun) {
        const scope = filter.tenant ? { tenant: filter.tenant } : undefined;
        for (const row of rows)
          redelivered += await admin.outbox.redeliver({ deliveryId: row.id }, now, scope);
      }
      if (json)
        writeJson(io, {
          ok: true,
          dryRun,
          matched: rows.length,
          redelivered,
          deliveries: rows.map(deliveryJson),
        });
      else {
        printDeliveries(
          io,
          rows,
          dryRun ? `${rows.length} would be queued again (dry run)` : `${redelivered} queued again`,
        );
      }
      return 0;
    }
    // purge
    if (!booleanFlag(args, 'yes')) {
      const matched = (await admin.list(filter)).length;
      if (json) writeJson(io, { ok: true, dryRun: true, matched, deleted: 0 });
      else
        io.stdout.write(
          `${matched} ${filter.status} deliveries would be deleted; run again with --yes to delete them\n`,
        );
      return 0;
    }
    const purged = await admin.purge(filter);
    if (json)
      writeJson(io, {
        ok: true,
        dryRun: false,
        deleted: purged.deliveries,
        messagesDeleted: purged.messages,
      });
    else
      io.stdout.write(
        `deleted ${purged.deliveries} ${filter.status} deliveries (and ${purged.messages} messages)\n`,
      );
    return 0;
  } finally {
    await admin.close();
  }
}
