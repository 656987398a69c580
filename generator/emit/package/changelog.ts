/**
 * `--previous <old contract>`: the version bump and CHANGELOG entry of an SDK package, from the diff
 * engine behind `gen-webhooks diff`. An SDK is read by receivers, so a change that breaks receivers
 * is major, any other change to what is delivered is minor, and documentation or metadata only is
 * patch. Each entry carries a marker (its base version and both contracts' digests): running the same
 * generation again rewrites that entry instead of bumping twice, so `--check` stays stable.
 */
import { createHash } from 'node:crypto';
import semver from 'semver';
import type { DiffChange, DiffReport } from '../../diff/index.js';
import type { ContractModel } from '../../model.js';
import { code, inline } from './markdown.js';

export type Bump = 'major' | 'minor' | 'patch' | 'none';

/** Changes to what is said about the contract, not to what is delivered (deprecation is a notice). */
const DOCS_ONLY = new Set<DiffChange['rule']>([
  'docs-changed',
  'metadata-changed',
  'event-deprecated',
  'event-undeprecated',
]);

export function classifyBump(report: DiffReport): Bump {
  const all = [...report.breaking.receivers, ...report.breaking.senders, ...report.safe];
  if (all.length === 0) return 'none';
  if (report.breaking.receivers.length > 0) return 'major';
  return all.every((change) => DOCS_ONLY.has(change.rule)) ? 'patch' : 'minor';
}

export function bumpVersion(version: string, bump: Bump): string {
  if (bump === 'none' || semver.valid(version) === null) return version;
  // semver's rules: a prerelease is released by the bump it precedes (1.3.0-rc.1 + minor → 1.3.0).
  return semver.inc(version, bump) ?? version;
}

/** A digest of what a contract delivers and documents (not where its files are). */
export function contractDigest(model: ContractModel): string {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== 'source') out[k] = strip(v);
    return out;
  };
  const { title, version, description, events, received, schemas, signature, envelope, selector, retry } =
    model;
  // `received` is absent (so left out of the JSON) for one-direction contracts: their digests are unchanged.
  const json = JSON.stringify(
    strip({ title, version, description, events, received, schemas, signature, envelope, selector, retry }),
  );
  return createHash('sha256').update(json).digest('hex').slice(0, 16);
}

export interface EntryMarker {
  readonly base: string;
  readonly from: string;
  readonly to: string;
}

const MARKER = /^<!-- gen-webhooks: base=(\S+) from=([0-9a-f]+) to=([0-9a-f]+) -->$/m;

/** The marker of the changelog's first entry, when gen-webhooks wrote it. */
export function firstEntryMarker(changelog: string): EntryMarker | undefined {
  const first = changelog.split(/^## /m)[1];
  const match = first === undefined ? null : MARKER.exec(first);
  return match ? { base: match[1] ?? '', from: match[2] ?? '', to: match[3] ?? '' } : undefined;
}

function changeLine(change: DiffChange): string {
  const where =
    change.event === undefined
      ? 'contract'
      : `${change.direction === 'client' ? 'client message ' : ''}${code(change.event)}`;
  const pointer = change.pointer
    ? ` ${code(change.location === 'headers' ? `headers${change.pointer}` : change.pointer)}`
    : '';
  return `- ${where}${pointer}: ${inline(change.message)}`;
}

function section(title: string, changes: readonly DiffChange[]): string[] {
  return changes.length === 0 ? [] : [`### ${title}`, changes.map(changeLine).join('\n')];
}

export interface ChangelogEntryInput {
  readonly version: string;
  readonly bump: Exclude<Bump, 'none'>;
  readonly report: DiffReport;
  readonly marker: EntryMarker;
}

export function changelogEntry(input: ChangelogEntryInput): string {
  const { report } = input;
  const { old, new: next } = report.summary;
  const receivers = new Set(report.breaking.receivers);
  const senders = report.breaking.senders.filter((c) => !receivers.has(c));
  const docs = report.safe.filter((c) => DOCS_ONLY.has(c.rule));
  const safe = report.safe.filter((c) => !DOCS_ONLY.has(c.rule));
  return [
    `## ${input.version}`,
    `<!-- gen-webhooks: base=${input.marker.base} from=${input.marker.from} to=${input.marker.to} -->`,
    `${input.bump[0]?.toUpperCase()}${input.bump.slice(1)} release: ${inline(`${old.title} ${old.version}`)} → ${inline(`${next.title} ${next.version}`)}.`,
    ...section('Breaking for receivers', report.breaking.receivers),
    ...section('Breaking for senders (safe for receivers)', senders),
    ...section('Changes', safe),
    ...section('Documentation', docs),
  ].join('\n\n');
}

/** The changelog with `entry` first (replacing the first entry when `replace`), or undefined when empty. */
export function withEntry(
  existing: string | undefined,
  entry: string | undefined,
  replace: boolean,
): string | undefined {
  const body = (existing ?? '').replace(/^# Changelog\s*/, '');
  const parts = body.split(/^(?=## )/m).filter((part) => part.trim() !== '');
  // Text above the first entry (an introduction someone wrote) stays where it is.
  const preamble = parts[0] !== undefined && !parts[0].startsWith('## ') ? [parts[0].trimEnd()] : [];
  const entries = parts.slice(preamble.length).map((part) => part.trimEnd());
  const kept = replace ? entries.slice(1) : entries;
  const all = entry === undefined ? kept : [entry, ...kept];
  if (all.length === 0 && preamble.length === 0) return undefined;
  return `${['# Changelog', ...preamble, ...all].join('\n\n')}\n`;
}
