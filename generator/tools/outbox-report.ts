/** Text and JSON views of `gen-webhooks outbox` results. */
import type { DeliveryRow, OutboxStats } from './outbox-store.js';
import { createStyle, type ToolIo } from './output.js';
import { printableDeep } from './printable.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const when = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

export function deliveryJson(row: DeliveryRow) {
  return { ...row, createdAt: iso(row.createdAt), finishedAt: iso(row.finishedAt) };
}

export function statsJson(stats: OutboxStats) {
  return {
    ...stats,
    oldestPendingAt: iso(stats.oldestPendingAt),
    deadByEndpoint: stats.deadByEndpoint.map((e) => ({ ...e, newestAt: iso(e.newestAt) })),
  };
}

export function printStats(io: ToolIo, label: string, rawStats: OutboxStats, now: number): void {
  // Tenants, endpoint ids and URLs were written by the app (and its API callers).
  const stats = printableDeep(rawStats, { multiline: false });
  const style = createStyle(io.stdout, io.env);
  const d = stats.deliveries;
  const lines = [
    `${style.bold('Outbox')} ${label}`,
    `Deliveries  pending ${d.pending} · delivering ${d.delivering} · succeeded ${d.succeeded} · ${
      d.dead > 0 ? style.red(`dead ${d.dead}`) : 'dead 0'
    }`,
    `Endpoints   ${stats.endpoints.total} (${stats.endpoints.disabled} disabled)`,
    `Oldest pending  ${
      stats.oldestPendingAt === null
        ? 'none'
        : `${when(stats.oldestPendingAt)} (${Math.round((now - stats.oldestPendingAt) / 1000)} s old)`
    }`,
  ];
  if (stats.deadByEndpoint.length > 0) {
    lines.push('', style.bold('Dead letters by endpoint'));
    for (const e of stats.deadByEndpoint) {
      lines.push(
        `  ${String(e.dead).padStart(6)}  ${e.endpointId}  ${e.tenant}  ${e.url}${e.enabled ? '' : style.yellow(' (disabled)')}  newest ${when(e.newestAt)}`,
      );
    }
    lines.push(
      '',
      style.dim('Replay them: gen-webhooks outbox redeliver --status dead [--endpoint <id>] [--since 24h]'),
    );
  }
  io.stdout.write(`${lines.join('\n')}\n`);
}

export function printDeliveries(io: ToolIo, rawRows: readonly DeliveryRow[], heading: string): void {
  // Event types, ids and last errors (a receiver's answer) are outside text.
  const rows = printableDeep(rawRows, { multiline: false });
  const style = createStyle(io.stdout, io.env);
  const lines = rows.map((r) => {
    const status =
      r.status === 'dead' ? style.red(r.status) : r.status === 'succeeded' ? style.green(r.status) : r.status;
    const at = r.finishedAt !== null ? `finished ${when(r.finishedAt)}` : `created ${when(r.createdAt)}`;
    return `${r.id}  ${status}  ${r.eventType}  ${r.endpointId} (${r.tenant})  ${r.attempts} attempt${r.attempts === 1 ? '' : 's'}  ${at}${r.lastError ? `  ${style.dim(r.lastError)}` : ''}`;
  });
  io.stdout.write(`${[...lines, style.bold(heading)].join('\n')}\n`);
}
