/** Standard Schema validation with issues as JSON pointers into the request body. */
import type { StandardSchemaV1 } from '../contract.js';
import { escapePointer } from '../json-pointer.js';
import type { ValidationIssue } from './types.js';

export interface Validated {
  readonly ok: boolean;
  /** The schema's output when valid, else the input unchanged. */
  readonly value: unknown;
  readonly issues: readonly ValidationIssue[];
}

function segment(part: PropertyKey | { readonly key: PropertyKey }): string {
  const key = typeof part === 'object' && part !== null ? part.key : part;
  return escapePointer(String(key));
}

function toIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>, prefix: string): ValidationIssue[] {
  return issues.map((issue) => ({
    path: prefix + (issue.path ?? []).map((part) => `/${segment(part)}`).join(''),
    message: issue.message,
  }));
}

function settle(result: StandardSchemaV1.Result<unknown>, value: unknown, prefix: string): Validated {
  if (result.issues === undefined) return { ok: true, value: result.value, issues: [] };
  return { ok: false, value, issues: toIssues(result.issues, prefix) };
}

/** Sync schemas stay sync (no microtask per request); async ones are awaited. */
export function validate(
  schema: StandardSchemaV1,
  value: unknown,
  prefix: string,
): Validated | Promise<Validated> {
  const result = schema['~standard'].validate(value);
  if (result instanceof Promise) return result.then((r) => settle(r, value, prefix));
  return settle(result, value, prefix);
}
