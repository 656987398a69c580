/**
 * The people-facing diff: one block per event (contract-level changes first), breaking changes
 * marked with whom they break, documentation-only changes folded into a count unless `verbose`.
 */
import type { DiffChange, DiffReport } from './types.js';

export interface TextStyle {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const plain: TextStyle = { red: id, green: id, yellow: id, dim: id, bold: id };

function id(text: string): string {
  return text;
}

export function formatDiffText(
  report: DiffReport,
  options: { style?: TextStyle; verbose?: boolean } = {},
): string {
  const style = options.style ?? plain;
  const { summary } = report;
  const lines: string[] = [
    style.bold(
      `${summary.old.title} ${summary.old.version} → ${summary.new.title} ${summary.new.version}` +
        ` (${summary.old.events} → ${summary.new.events} events)`,
    ),
  ];
  const all = [...new Set([...report.breaking.receivers, ...report.breaking.senders, ...report.safe])];
  const groups = new Map<string, DiffChange[]>();
  for (const change of all) {
    const key =
      change.event === undefined
        ? ''
        : `${change.direction === 'client' ? 'client message ' : ''}${change.event}`;
    const group = groups.get(key) ?? [];
    group.push(change);
    groups.set(key, group);
  }
  const keys = [...groups.keys()].sort();
  for (const key of keys) {
    const group = groups.get(key) ?? [];
    const shown = options.verbose ? group : group.filter((c) => c.rule !== 'docs-changed');
    const docs = group.length - shown.length;
    lines.push('', style.bold(key === '' ? '(contract)' : key));
    for (const change of shown) lines.push(`  ${formatChange(change, style)}`);
    if (docs > 0)
      lines.push(
        style.dim(`  · ${docs} documentation change${docs === 1 ? '' : 's'} (--verbose lists them)`),
      );
  }
  if (all.length === 0) lines.push('', style.green('No changes.'));
  const counts = [
    paint(summary.receivers, `breaking for receivers`, style),
    paint(summary.senders, `breaking for senders`, style),
    `${summary.safe} safe`,
  ];
  lines.push(
    '',
    `${counts.join(', ')}; events: ${summary.eventsAdded} added, ${summary.eventsRemoved} removed, ${summary.eventsChanged} changed` +
      (summary.clientMessagesAdded + summary.clientMessagesRemoved + summary.clientMessagesChanged > 0
        ? `; client messages: ${summary.clientMessagesAdded} added, ${summary.clientMessagesRemoved} removed, ${summary.clientMessagesChanged} changed`
        : ''),
  );
  return `${lines.join('\n')}\n`;
}

function paint(count: number, label: string, style: TextStyle): string {
  const text = `${count} ${label}`;
  return count > 0 ? style.red(text) : style.green(text);
}

function formatChange(change: DiffChange, style: TextStyle): string {
  const who =
    change.breaks.length === 2
      ? style.red('✖ both     ')
      : change.breaks[0] === 'receivers'
        ? style.red('✖ receivers')
        : change.breaks[0] === 'senders'
          ? style.yellow('✖ senders  ')
          : style.dim('· safe     ');
  const where = change.location === 'headers' ? `headers${change.pointer}` : change.pointer || '/';
  const values =
    change.old !== undefined || change.new !== undefined
      ? style.dim(` (${short(change.old)} → ${short(change.new)})`)
      : '';
  return `${who} ${change.rule.padEnd(28)} ${where}  ${change.message}${values}`;
}

function short(value: unknown): string {
  if (value === undefined) return '—';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
