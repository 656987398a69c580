/**
 * GitHub conventions (`preset: 'github'`, or a document recognised as GitHub's webhook spec).
 *
 * Recognition: an OpenAPI document whose webhook operations carry GitHub's `x-github` extension
 * object and declare an `X-GitHub-Event` header parameter (the shape of
 * `@octokit/openapi-webhooks` and `github/rest-api-description`). The title is not used: forks
 * and subsets retitle the document.
 *
 * Per event, the selector values come from the spec, never from splitting the webhook key:
 * - header (`X-GitHub-Event` value): the header parameter's schema `const`/single `enum`; else the
 *   operation's `x-github.subcategory`; else the parameter's `example`. GitHub event names are
 *   snake_case, so `-` in the value becomes `_` (the spec writes `sub-issues` for `sub_issues`).
 *   The subcategory outranks the example because GitHub's spec gives nearly every operation the
 *   example `issues`.
 * - action: the payload's `action` property `const` or single-value `enum` (looking through `$ref`,
 *   `allOf`, `oneOf`, `anyOf`: all branches must agree). Events without a fixed action (push, ping,
 *   repository_dispatch) have none.
 * The event name is `<header>.<action>` (`issues.opened`) or `<header>`.
 */
import type { EnvelopeConfig, SelectorConfig, SignatureConfig } from '@gen-webhooks/runtime';
import { child, isRecord, type Loc } from '../load/document-store.js';
import { METHODS, type ParseContext } from './context.js';

export const GITHUB_EVENT_HEADER = 'X-GitHub-Event';
export const GITHUB_SIGNATURE: SignatureConfig = { kind: 'preset', preset: 'github' };
export const GITHUB_ENVELOPE: EnvelopeConfig = { kind: 'bare' };
export const GITHUB_SELECTOR: SelectorConfig = {
  kind: 'header',
  header: GITHUB_EVENT_HEADER,
  bodyField: 'action',
};

interface StoreLike {
  deref(loc: Loc): { loc: Loc };
}

function eventHeaderParam(store: StoreLike, operation: Loc): Loc | undefined {
  const params = child(operation, 'parameters');
  if (!Array.isArray(params.value)) return undefined;
  for (let i = 0; i < params.value.length; i++) {
    const param = store.deref(child(params, i)).loc;
    const p = param.value;
    if (
      isRecord(p) &&
      p.in === 'header' &&
      typeof p.name === 'string' &&
      p.name.toLowerCase() === 'x-github-event'
    ) {
      return param;
    }
  }
  return undefined;
}

/** True when the document looks like GitHub's webhook spec (see the header comment). */
export function isGitHubDocument(store: StoreLike, root: Loc): boolean {
  const webhooks = child(root, 'webhooks');
  if (!isRecord(webhooks.value)) return false;
  for (const key of Object.keys(webhooks.value)) {
    const item = store.deref(child(webhooks, key)).loc;
    if (!isRecord(item.value)) continue;
    for (const method of METHODS) {
      const operation = child(item, method);
      if (
        isRecord(operation.value) &&
        isRecord(operation.value['x-github']) &&
        eventHeaderParam(store, operation)
      ) {
        return true;
      }
    }
  }
  return false;
}

function single(schema: unknown): string | undefined {
  if (!isRecord(schema)) return undefined;
  if (typeof schema.const === 'string') return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length === 1 && typeof schema.enum[0] === 'string') {
    return schema.enum[0];
  }
  return undefined;
}

function eventHeader(ctx: ParseContext, operation: Loc): string | undefined {
  const param = eventHeaderParam(ctx.store, operation);
  const fromSchema = param ? single(ctx.store.deref(child(param, 'schema')).loc.value) : undefined;
  const op = operation.value as Record<string, unknown>;
  const meta = op['x-github'];
  const subcategory = isRecord(meta) && typeof meta.subcategory === 'string' ? meta.subcategory : undefined;
  const example =
    param && isRecord(param.value) && typeof param.value.example === 'string'
      ? param.value.example
      : undefined;
  const value = fromSchema ?? subcategory ?? example;
  return value === undefined || value === '' ? undefined : value.replace(/-/g, '_');
}

/** Values of `action` fixed by the schema at `loc` (union over branches), or undefined when free. */
function actions(ctx: ParseContext, loc: Loc, seen: Set<string>): Set<string> | undefined {
  if (!isRecord(loc.value)) return undefined;
  const resolved = ctx.store.deref(loc).loc;
  const id = `${resolved.doc.id}#${resolved.pointer}`;
  if (seen.has(id) || seen.size > 64 || !isRecord(resolved.value)) return undefined;
  seen.add(id);
  const schema = resolved.value;
  if (isRecord(schema.properties) && schema.properties.action !== undefined) {
    const action = ctx.store.deref(child(child(resolved, 'properties'), 'action')).loc.value;
    const fixed = single(action);
    if (fixed !== undefined) return new Set([fixed]);
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const union = new Set<string>();
    for (let i = 0; i < branches.length; i++) {
      const found = actions(ctx, child(child(resolved, key), i), seen);
      if (!found) return undefined;
      for (const a of found) union.add(a);
    }
    return union;
  }
  if (Array.isArray(schema.allOf)) {
    for (let i = 0; i < schema.allOf.length; i++) {
      const found = actions(ctx, child(child(resolved, 'allOf'), i), seen);
      if (found) return found;
    }
  }
  return undefined;
}

export interface GitHubSelection {
  readonly name: string;
  readonly match: { readonly header: string; readonly body?: string };
}

export function githubSelector(
  ctx: ParseContext,
  operation: Loc,
  bodySchema: Loc,
): GitHubSelection | undefined {
  const header = eventHeader(ctx, operation);
  if (header === undefined) return undefined;
  const found = actions(ctx, bodySchema, new Set());
  const action = found && found.size === 1 ? [...found][0] : undefined;
  return action === undefined
    ? { name: header, match: { header } }
    : { name: `${header}.${action}`, match: { header, body: action } };
}
