/**
 * OpenAPI 3.0 / 3.1 → event drafts.
 * - 3.1 top-level `webhooks`: every operation of a path item that has a request body is an event named
 *   after the webhook key; a path item with several such operations yields `<key>.<method>` (warning).
 * - `x-webhooks` (the 3.0 convention, same shape): read in 3.0 and 3.1; a key also present in
 *   `webhooks` is skipped (info). A 3.0 document with a top-level `webhooks` is read too (warning).
 * - `callbacks` under any operation in `paths` (and under webhook operations): every callback
 *   operation with a request body is an event named after the callback key; when one callback holds
 *   several, `<key>.<expression>` (expression reduced to `[A-Za-z0-9._-]`) and/or `.<method>` are added.
 * - `x-gen-webhooks: { event, match }` on an operation overrides the name and the selector values.
 * Request body media type: `application/json`, then any `+json`, then form-urlencoded (warning); an
 * operation with none of these is skipped with a warning.
 */
import { child, isRecord, type Loc, where } from '../load/document-store.js';
import type { JsonSchemaObject, SourcedSchema } from '../model.js';
import { type EventDraft, info, METHODS, optionalString, type ParseContext, warn } from './context.js';
import { readEventExtension } from './extension.js';
import { githubSelector } from './github.js';
import { schemaExamples } from './payload.js';
import { isApimaticGroup } from './vendor-apimatic.js';

interface BodyOperation {
  readonly method: string;
  readonly operation: Loc;
  /** Resolved request body. */
  readonly body: Loc;
}

export function parseOpenApi(ctx: ParseContext, root: Loc, is31: boolean): EventDraft[] {
  const drafts: EventDraft[] = [];
  const doc = root.value as Record<string, unknown>;
  const webhookKeys = new Set<string>();
  if (doc.webhooks !== undefined) {
    const webhooks = child(root, 'webhooks');
    if (!is31) {
      warn(
        ctx,
        webhooks,
        'webhooks_in_3_0',
        '`webhooks` is an OpenAPI 3.1 field; read anyway (3.0 uses x-webhooks)',
      );
    }
    if (!isRecord(webhooks.value)) {
      warn(ctx, webhooks, 'invalid_webhooks', '`webhooks` is not a mapping; ignored');
    } else {
      for (const key of Object.keys(webhooks.value)) {
        webhookKeys.add(key);
        drafts.push(...pathItemEvents(ctx, child(webhooks, key), key));
      }
    }
  }
  // APIMatic writes its webhook groups (signature, discriminator) under x-webhooks: not webhooks.
  if (
    doc['x-webhooks'] !== undefined &&
    !(isRecord(doc['x-webhooks']) && isApimaticGroup(doc['x-webhooks']))
  ) {
    const hooks = child(root, 'x-webhooks');
    if (!isRecord(hooks.value)) {
      warn(ctx, hooks, 'invalid_webhooks', '`x-webhooks` is not a mapping; ignored');
    } else {
      for (const key of Object.keys(hooks.value)) {
        if (webhookKeys.has(key)) {
          info(
            ctx,
            child(hooks, key),
            'duplicate_webhook',
            `x-webhooks "${key}" is also in webhooks; using webhooks`,
          );
          continue;
        }
        const entry = ctx.store.deref(child(hooks, key)).loc;
        if (isRecord(entry.value) && isApimaticGroup(entry.value)) continue;
        if (isRecord(entry.value) && isCallbackObject(entry.value)) {
          // The callback-object spelling some vendors use: name → { runtime expression → path item }.
          drafts.push(...callbackObjectEvents(ctx, entry, key));
        } else {
          drafts.push(...pathItemEvents(ctx, child(hooks, key), key));
        }
      }
    }
  }
  const paths = child(root, 'paths');
  if (isRecord(paths.value)) {
    for (const path of Object.keys(paths.value)) {
      const item = ctx.store.deref(child(paths, path)).loc;
      if (!isRecord(item.value)) continue;
      for (const method of METHODS) {
        const operation = child(item, method);
        if (isRecord(operation.value)) drafts.push(...callbackEvents(ctx, operation));
      }
    }
  }
  return drafts;
}

/** Events of one webhook path item. */
function pathItemEvents(ctx: ParseContext, itemLoc: Loc, key: string): EventDraft[] {
  const { loc: item, siblings } = ctx.store.deref(itemLoc);
  if (!isRecord(item.value)) {
    warn(ctx, itemLoc, 'invalid_path_item', `webhook "${key}" is not a path item; ignored`);
    return [];
  }
  const operations = bodyOperations(ctx, item);
  if (operations.length > 1) {
    warn(
      ctx,
      item,
      'several_operations',
      `webhook "${key}" has ${operations.length} operations with a request body; named ${operations
        .map((o) => `"${key}.${o.method}"`)
        .join(', ')}`,
    );
  }
  const drafts: EventDraft[] = [];
  for (const op of operations) {
    const name = operations.length > 1 ? `${key}.${op.method}` : key;
    const draft = operationEvent(ctx, item, op, name, siblings);
    if (draft) drafts.push(draft);
  }
  // Callbacks declared on webhook operations are events too.
  for (const method of METHODS) {
    const operation = child(item, method);
    if (isRecord(operation.value)) drafts.push(...callbackEvents(ctx, operation));
  }
  return drafts;
}

function bodyOperations(ctx: ParseContext, item: Loc): BodyOperation[] {
  const out: BodyOperation[] = [];
  for (const method of METHODS) {
    const operation = child(item, method);
    if (!isRecord(operation.value)) continue;
    const bodyLoc = child(operation, 'requestBody');
    if (bodyLoc.value === undefined) {
      info(
        ctx,
        operation,
        'no_request_body',
        `operation ${method.toUpperCase()} has no request body; not an event`,
      );
      continue;
    }
    out.push({ method, operation, body: ctx.store.deref(bodyLoc).loc });
  }
  return out;
}

function callbackEvents(ctx: ParseContext, operation: Loc): EventDraft[] {
  const callbacks = child(operation, 'callbacks');
  if (!isRecord(callbacks.value)) return [];
  const drafts: EventDraft[] = [];
  for (const key of Object.keys(callbacks.value)) {
    drafts.push(...callbackObjectEvents(ctx, ctx.store.deref(child(callbacks, key)).loc, key));
  }
  return drafts;
}

/** True when a path item holds no operation but runtime-expression keys: a Callback Object. */
function isCallbackObject(value: Record<string, unknown>): boolean {
  const keys = Object.keys(value).filter((k) => !k.startsWith('x-'));
  return (
    keys.length > 0 &&
    !keys.some((k) => (METHODS as readonly string[]).includes(k) || k === '$ref' || k === 'parameters') &&
    keys.every((k) => isRecord(value[k]))
  );
}

/** Events of one Callback Object (runtime expression → path item), named after `key`. */
function callbackObjectEvents(ctx: ParseContext, callback: Loc, key: string): EventDraft[] {
  if (!isRecord(callback.value)) return [];
  const entries: {
    expression: string;
    item: Loc;
    siblings?: Readonly<Record<string, unknown>>;
    op: BodyOperation;
  }[] = [];
  for (const expression of Object.keys(callback.value)) {
    if (expression.startsWith('x-')) continue;
    const { loc: item, siblings } = ctx.store.deref(child(callback, expression));
    if (!isRecord(item.value)) continue;
    for (const op of bodyOperations(ctx, item))
      entries.push({ expression, item, op, ...(siblings ? { siblings } : {}) });
  }
  const expressions = new Set(entries.map((e) => e.expression));
  const drafts: EventDraft[] = [];
  for (const entry of entries) {
    const parts = [key];
    if (expressions.size > 1) parts.push(expressionSlug(entry.expression));
    if (entries.filter((e) => e.expression === entry.expression).length > 1) parts.push(entry.op.method);
    const draft = operationEvent(ctx, entry.item, entry.op, parts.join('.'), entry.siblings);
    if (draft) drafts.push(draft);
  }
  return drafts;
}

/** `{$request.body#/callbackUrl}/data` → `request.body.callbackUrl.data`: readable and stable. */
export function expressionSlug(expression: string): string {
  const slug = expression
    .replace(/[{}$]/g, '')
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .replace(/[^A-Za-z0-9._-]+/g, '.')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.]+|[.]+$/g, '');
  return slug === '' ? 'callback' : slug;
}

function operationEvent(
  ctx: ParseContext,
  item: Loc,
  op: BodyOperation,
  defaultName: string,
  siblings: Readonly<Record<string, unknown>> | undefined,
): EventDraft | undefined {
  const operation = op.operation.value as Record<string, unknown>;
  const pathItem = item.value as Record<string, unknown>;
  const picked = pickMediaType(ctx, op.body);
  if (!picked) return undefined;
  const media = picked.loc;
  const schemaLoc = child(media, 'schema');
  const bodySchema: Loc =
    schemaLoc.value === undefined ? { doc: media.doc, pointer: media.pointer, value: {} } : schemaLoc;
  if (schemaLoc.value === undefined) {
    warn(ctx, media, 'no_schema', 'the request body has no schema; the payload accepts any value');
  }
  let examples = mediaExamples(ctx, media);
  if (examples.length === 0) examples = schemaExamples(ctx, bodySchema);
  const extension = readEventExtension(op.operation);
  let name = extension.event ?? defaultName;
  let match = extension.match;
  if (ctx.github) {
    const selected = githubSelector(ctx, op.operation, bodySchema);
    if (selected) {
      if (extension.event === undefined) name = selected.name;
      match = { ...selected.match, ...extension.match };
    } else {
      warn(ctx, op.operation, 'github_event_unknown', `cannot tell the X-GitHub-Event of "${defaultName}"`);
    }
  }
  const summary =
    optionalString(siblings?.summary) ??
    optionalString(operation.summary) ??
    optionalString(pathItem.summary);
  const description =
    optionalString(siblings?.description) ??
    optionalString(operation.description) ??
    optionalString(pathItem.description);
  const headers = headerSchema(ctx, item, op.operation);
  return {
    name,
    ...(summary !== undefined ? { summary } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(operation.deprecated === true ? { deprecated: true } : {}),
    body: bodySchema,
    ...(picked.kind !== 'json' ? { media: { kind: picked.kind, jsonFields: picked.jsonFields } } : {}),
    ...(headers ? { headers } : {}),
    bodyExamples: examples,
    ...(match && Object.keys(match).length > 0 ? { match } : {}),
    source: where(op.operation),
    identity: `${op.operation.doc.id}#${op.operation.pointer}`,
    operation: op.operation,
    ...(optionalString(operation.operationId) !== undefined
      ? { operationId: optionalString(operation.operationId) as string }
      : {}),
  };
}

/** Media type essence without parameters, lower-cased. */
function essence(type: string): string {
  return (type.split(';')[0] ?? '').trim().toLowerCase();
}

export type MediaKind = 'json' | 'form' | 'multipart';

interface PickedMedia {
  readonly loc: Loc;
  readonly kind: MediaKind;
  /** Form/multipart fields that carry JSON text. */
  readonly jsonFields: readonly string[];
}

/** Fields of a form/multipart body sent as JSON: `encoding.<field>.contentType`, and (multipart) objects. */
function jsonFieldsOf(ctx: ParseContext, media: Loc, kind: MediaKind): string[] {
  const out = new Set<string>();
  const encoding = ctx.store.deref(child(media, 'encoding')).loc;
  if (isRecord(encoding.value)) {
    for (const [field, spec] of Object.entries(encoding.value)) {
      if (isRecord(spec) && typeof spec.contentType === 'string' && /json/i.test(spec.contentType))
        out.add(field);
    }
  }
  if (kind === 'multipart') {
    // OpenAPI: a multipart property that is an object or array is sent as application/json by default.
    const schema = ctx.store.deref(child(media, 'schema')).loc;
    const properties = isRecord(schema.value) ? ctx.store.deref(child(schema, 'properties')).loc : undefined;
    if (properties && isRecord(properties.value)) {
      for (const field of Object.keys(properties.value)) {
        const value = ctx.store.deref(child(properties, field)).loc.value;
        if (isRecord(value) && (value.type === 'object' || value.type === 'array')) {
          const spec = isRecord(encoding.value) ? encoding.value[field] : undefined;
          if (!(isRecord(spec) && typeof spec.contentType === 'string' && !/json/i.test(spec.contentType)))
            out.add(field);
        }
      }
    }
  }
  return [...out];
}

function pickMediaType(ctx: ParseContext, body: Loc): PickedMedia | undefined {
  const content = child(body, 'content');
  if (!isRecord(content.value) || Object.keys(content.value).length === 0) {
    warn(ctx, body, 'no_content', 'the request body declares no content; skipped');
    return undefined;
  }
  const types = Object.keys(content.value);
  const json =
    types.find((t) => essence(t) === 'application/json') ?? types.find((t) => /\+json$/.test(essence(t)));
  if (json !== undefined)
    return { loc: ctx.store.deref(child(content, json)).loc, kind: 'json', jsonFields: [] };
  for (const [type, kind] of [
    ['application/x-www-form-urlencoded', 'form'],
    ['multipart/form-data', 'multipart'],
  ] as const) {
    const found = types.find((t) => essence(t) === type);
    if (found === undefined) continue;
    const loc = ctx.store.deref(child(content, found)).loc;
    const jsonFields = jsonFieldsOf(ctx, loc, kind);
    warn(
      ctx,
      child(content, found),
      kind === 'form' ? 'form_body' : 'multipart_body',
      `${kind === 'form' ? 'form-encoded' : 'multipart'} request body: the schema describes the decoded fields, which arrive as strings${jsonFields.length > 0 ? ` (${jsonFields.join(', ')} parsed as JSON)` : ''}`,
    );
    return { loc, kind, jsonFields };
  }
  warn(
    ctx,
    content,
    'unsupported_media_type',
    `no JSON, form or multipart request body (found ${types.join(', ')}); operation skipped`,
  );
  return undefined;
}

function mediaExamples(ctx: ParseContext, media: Loc): unknown[] {
  const value = media.value as Record<string, unknown>;
  if ('example' in value) return [value.example];
  const examples = child(media, 'examples');
  if (!isRecord(examples.value)) return [];
  const out: unknown[] = [];
  for (const key of Object.keys(examples.value)) {
    const example = ctx.store.deref(child(examples, key)).loc;
    if (isRecord(example.value) && 'value' in example.value) out.push(example.value.value);
    else if (isRecord(example.value) && 'externalValue' in example.value) {
      info(ctx, example, 'external_example', 'externalValue examples are not loaded');
    }
  }
  return out;
}

/** Header parameters of the path item and the operation (operation wins) as one object schema. */
function headerSchema(ctx: ParseContext, item: Loc, operation: Loc): SourcedSchema | undefined {
  const byName = new Map<string, Loc>();
  for (const owner of [item, operation]) {
    const params = child(owner, 'parameters');
    if (!Array.isArray(params.value)) continue;
    for (let i = 0; i < params.value.length; i++) {
      const param = ctx.store.deref(child(params, i)).loc;
      if (!isRecord(param.value) || param.value.in !== 'header' || typeof param.value.name !== 'string')
        continue;
      byName.set(param.value.name.toLowerCase(), param);
    }
  }
  if (byName.size === 0) return undefined;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const param of byName.values()) {
    const p = param.value as Record<string, unknown>;
    const name = p.name as string;
    let schemaLoc = child(param, 'schema');
    if (schemaLoc.value === undefined && isRecord(p.content)) {
      const first = Object.keys(p.content)[0];
      if (first !== undefined) schemaLoc = child(child(child(param, 'content'), first), 'schema');
    }
    // Parameter `example`s are not copied into the schema: GitHub's are wrong (`issues` for every
    // event, numbers for string headers) and would become invalid fixtures.
    let schema: JsonSchemaObject | boolean =
      schemaLoc.value === undefined ? { type: 'string' } : ctx.schemas.schemaAt(schemaLoc);
    const description = optionalString(p.description);
    if (description !== undefined && typeof schema === 'object' && schema.description === undefined) {
      schema =
        '$ref' in schema || 'allOf' in schema ? { allOf: [schema], description } : { ...schema, description };
    }
    properties[name] = schema;
    if (p.required === true) required.push(name);
  }
  const schema: Record<string, unknown> = { type: 'object', properties };
  if (required.length > 0) schema.required = required;
  return { schema, source: `${where(operation)}/parameters` };
}
