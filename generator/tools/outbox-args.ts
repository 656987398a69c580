/** Flags of `gen-webhooks outbox`: where the outbox is, which deliveries, and times (dates or ages). */
import type { DeliveryStatus } from '@gen-webhooks/runtime';
import { GeneratorError } from '../errors.js';
import { type ParsedArgs, parseInteger, stringFlag } from './args.js';
import type { OpenOptions } from './outbox-open.js';
import type { DeliveryFilter } from './outbox-store.js';

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivering', 'succeeded', 'dead'];
const AGE = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/;
const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** `--db`, else `DATABASE_URL`; one of them is required. */
export function openOptions(
  command: string,
  args: ParsedArgs,
  env: { readonly [name: string]: string | undefined },
): OpenOptions {
  const target = stringFlag(args, 'db') ?? env.DATABASE_URL;
  if (!target) {
    throw new GeneratorError(
      'invalid_argument',
      `${command}: say which outbox: --db <file.sqlite | postgres://…>`,
      {
        expected: '--db, or the DATABASE_URL environment variable',
      },
    );
  }
  return {
    target,
    schema: stringFlag(args, 'schema') ?? 'public',
    prefix: stringFlag(args, 'prefix') ?? 'webhook_',
  };
}

/** A time flag: an ISO 8601 date or date-time, or an age back from now (`30m`, `24h`, `7d`). */
export function parseInstant(command: string, flag: string, text: string, now: number): number {
  const trimmed = text.trim();
  const age = AGE.exec(trimmed);
  if (age) return now - Math.round(Number(age[1]) * (UNIT_MS[age[2] as string] as number));
  const at = /^\d{4}-\d{2}-\d{2}/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isNaN(at)) {
    throw new GeneratorError(
      'invalid_argument',
      `${command}: --${flag} ${JSON.stringify(text)} is not a time`,
      {
        expected:
          'an ISO 8601 date or date-time (2026-01-31, 2026-01-31T12:00:00Z) or an age such as 30m, 24h, 7d',
      },
    );
  }
  return at;
}

export function statusFlag(
  command: string,
  args: ParsedArgs,
  allowed: readonly DeliveryStatus[] = STATUSES,
): DeliveryStatus | undefined {
  const text = stringFlag(args, 'status');
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text)) {
    throw new GeneratorError(
      'invalid_argument',
      `${command}: --status ${JSON.stringify(text)} is not one of these`,
      {
        expected: allowed.join(', '),
      },
    );
  }
  return text as DeliveryStatus;
}

/** The delivery filter of `list`, `redeliver` and `purge` (`until` also read from `--before`). */
export function filterOf(
  command: string,
  args: ParsedArgs,
  now: number,
  status: DeliveryStatus | undefined,
  limit: { readonly fallback?: number; readonly max: number },
): DeliveryFilter {
  const since = stringFlag(args, 'since');
  const until = stringFlag(args, 'until') ?? stringFlag(args, 'before');
  const limitText = stringFlag(args, 'limit');
  const filter: DeliveryFilter = {
    ...(status ? { status } : {}),
    ...(stringFlag(args, 'endpoint') ? { endpointId: stringFlag(args, 'endpoint') } : {}),
    ...(stringFlag(args, 'tenant') ? { tenant: stringFlag(args, 'tenant') } : {}),
    ...(stringFlag(args, 'event') ? { eventType: stringFlag(args, 'event') } : {}),
    ...(since !== undefined ? { since: parseInstant(command, 'since', since, now) } : {}),
    ...(until !== undefined ? { until: parseInstant(command, 'until', until, now) } : {}),
    ...(limitText !== undefined
      ? { limit: parseInteger(command, 'limit', limitText, 1, limit.max) }
      : limit.fallback !== undefined
        ? { limit: limit.fallback }
        : {}),
  };
  if (filter.since !== undefined && filter.until !== undefined && filter.since >= filter.until) {
    throw new GeneratorError('invalid_argument', `${command}: --since must be before --until`);
  }
  return filter;
}
