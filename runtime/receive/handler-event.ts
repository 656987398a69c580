/** The event object a handler receives, built from the verified, validated delivery. */
import type { HeadersInput } from '../signing/scheme.js';

/** One validation problem; `path` is a JSON pointer into the request body (e.g. `/data/petId`). */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

export type AnyHandler = (event: HandlerEvent) => unknown;

export interface HandlerEvent {
  readonly id: string;
  readonly type: string;
  readonly timestamp: Date | undefined;
  readonly data: unknown;
  readonly headers: Readonly<Record<string, string>>;
  readonly issues: readonly ValidationIssue[];
  readonly tx: unknown;
  readonly signal: AbortSignal;
}

/** A handler event before it gets its `tx`; `headers` as the request gave them. */
export interface EventParts {
  readonly id: string;
  readonly type: string;
  readonly timestamp: Date | undefined;
  readonly data: unknown;
  readonly headers: HeadersInput;
  readonly issues: readonly ValidationIssue[];
}

/**
 * The event a handler receives. Plain data properties only: an object literal with an accessor (a
 * lazy `headers`) costs V8 more to create than building the header record.
 */
export function handlerEvent(parts: EventParts, tx: unknown, signal: AbortSignal): HandlerEvent {
  return {
    id: parts.id,
    type: parts.type,
    timestamp: parts.timestamp,
    data: parts.data,
    headers: headerRecord(parts.headers),
    issues: parts.issues,
    tx,
    signal,
  };
}

export function headerRecord(headers: HeadersInput): Record<string, string> {
  const record: Record<string, string> = {};
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((value, name) => {
      record[name] = value;
    });
    return record;
  }
  const source = headers as Record<string, string | readonly string[] | undefined>;
  // Object.keys rather than Object.entries: no [name, value] array per header.
  for (const name of Object.keys(source)) {
    const value = source[name];
    if (value !== undefined)
      record[name.toLowerCase()] = typeof value === 'string' ? value : value.join(', ');
  }
  return record;
}

/** A handler's result needs awaiting only when it is a thenable (sync handlers pay no promise). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
