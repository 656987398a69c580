/**
 * One AsyncAPI message (2.x or 3.x) → an event draft: payload, headers, examples, texts.
 * Message traits are applied per field with JSON Merge Patch: in 2.x a trait's value wins over the
 * message's (traits are merged *into* the message), in 3.x the message's own value wins. Payloads (and headers) in a
 * schema format that is not JSON Schema (Avro, RAML, Protobuf, …) cannot be typed: the message is
 * skipped with a warning.
 */
import { child, isRecord, type Loc, where } from '../load/document-store.js';
import { type EventDraft, info, optionalString, type ParseContext, warn } from './context.js';
import { readEventExtension } from './extension.js';
import { schemaExamples } from './payload.js';

const JSON_SCHEMA_FORMAT =
  /^application\/(vnd\.aai\.asyncapi|schema|vnd\.oai\.openapi)(\+json|\+yaml)?(\s*;.*)?$/i;

export interface MessageUse {
  /** The resolved message object. */
  readonly message: Loc;
  /** Name to use when the message declares none (already made unique by the caller). */
  readonly fallbackName: string;
  /** Operation carrying the message, for an `x-gen-webhooks` on the operation (single message only). */
  readonly operation?: Loc;
  readonly version: 2 | 3;
  /** The document's `defaultContentType`. */
  readonly defaultContentType?: string;
  /** Who sends it, from the operation (see EventDraft.direction); absent without an operation. */
  readonly direction?: 'send' | 'receive';
}

/**
 * A message field after traits, as a location (refs inside resolve relative to where it is written).
 * Traits are applied with JSON Merge Patch (RFC 7386), as the AsyncAPI parser does: in 2.x each trait
 * is patched onto the message (the trait wins); in 3.x the message is patched onto its traits (the
 * message wins). A merged value is located at the message's own field.
 */
function field(ctx: ParseContext, use: MessageUse, key: string): Loc | undefined {
  const own = child(use.message, key);
  const traits = child(use.message, 'traits');
  const layers: Loc[] = [];
  if (Array.isArray(traits.value)) {
    for (let i = 0; i < traits.value.length; i++) {
      const candidate = child(ctx.store.deref(child(traits, i)).loc, key);
      if (candidate.value !== undefined) layers.push(candidate);
    }
  }
  if (layers.length === 0) return own.value === undefined ? undefined : own;
  if (own.value !== undefined) {
    if (use.version === 2) layers.unshift(own);
    else layers.push(own);
  }
  let result = layers[0] as Loc;
  for (const patch of layers.slice(1)) {
    const base = ctx.store.deref(result).loc;
    const top = ctx.store.deref(patch).loc;
    result =
      isRecord(base.value) && isRecord(top.value)
        ? { ...(own.value !== undefined ? own : top), value: mergePatch(base.value, top.value) }
        : patch;
  }
  return result;
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const key of Object.keys(patch)) {
    if (patch[key] === null) delete out[key];
    else out[key] = mergePatch(out[key], patch[key]);
  }
  return out;
}

/** The schema location inside a (possibly multi-format) schema slot; undefined when not JSON Schema. */
function jsonSchemaOf(
  ctx: ParseContext,
  slot: Loc,
  messageFormat: string | undefined,
): { loc: Loc } | { unsupported: string } {
  const resolved = ctx.store.deref(slot).loc;
  if (
    isRecord(resolved.value) &&
    typeof resolved.value.schemaFormat === 'string' &&
    'schema' in resolved.value
  ) {
    const format = resolved.value.schemaFormat;
    const schema = child(resolved, 'schema');
    if (JSON_SCHEMA_FORMAT.test(format)) return { loc: schema };
    // Follow the schema's $ref anyway: a refused remote ref must surface as remote_ref_refused.
    ctx.store.deref(schema);
    return { unsupported: format };
  }
  if (messageFormat !== undefined && !JSON_SCHEMA_FORMAT.test(messageFormat))
    return { unsupported: messageFormat };
  return { loc: slot };
}

export function messageEvent(ctx: ParseContext, use: MessageUse): EventDraft | undefined {
  const message = use.message;
  const formatLoc = field(ctx, use, 'schemaFormat');
  const schemaFormat = typeof formatLoc?.value === 'string' ? formatLoc.value : undefined;
  const payloadLoc = field(ctx, use, 'payload');
  let body: Loc;
  if (payloadLoc === undefined) {
    warn(ctx, message, 'no_payload', 'the message has no payload; the event accepts any value');
    body = { doc: message.doc, pointer: `${message.pointer}/payload`, value: {} };
  } else {
    const schema = jsonSchemaOf(ctx, payloadLoc, schemaFormat);
    if ('unsupported' in schema) {
      warn(
        ctx,
        payloadLoc,
        'unsupported_schema_format',
        `payload schema format "${schema.unsupported}" is not JSON Schema; message skipped`,
      );
      return undefined;
    }
    body = schema.loc;
  }
  const contentLoc = field(ctx, use, 'contentType');
  const contentType = typeof contentLoc?.value === 'string' ? contentLoc.value : use.defaultContentType;
  if (contentType !== undefined && !/(^application\/json|\+json)(\s*;.*)?$/i.test(contentType.trim())) {
    warn(
      ctx,
      message,
      'non_json_content',
      `content type "${contentType}": the payload is typed as JSON anyway`,
    );
  }
  const examples: unknown[] = [];
  const examplesLoc = field(ctx, use, 'examples');
  if (examplesLoc && Array.isArray(examplesLoc.value)) {
    for (let i = 0; i < examplesLoc.value.length; i++) {
      const example = ctx.store.deref(child(examplesLoc, i)).loc.value;
      if (isRecord(example) && 'payload' in example) examples.push(example.payload);
    }
  }
  // Without message examples, the payload schema's own `examples`/`example` are the bodies.
  if (examples.length === 0 && payloadLoc !== undefined) examples.push(...schemaExamples(ctx, body));
  let headers: EventDraft['headers'];
  const headersLoc = field(ctx, use, 'headers');
  if (headersLoc !== undefined) {
    const schema = jsonSchemaOf(ctx, headersLoc, schemaFormat);
    if ('unsupported' in schema) {
      info(ctx, headersLoc, 'unsupported_schema_format', `headers in "${schema.unsupported}" are not typed`);
    } else {
      headers = ctx.schemas.normalize(schema.loc);
    }
  }
  const own = readEventExtension(message);
  const fromOperation = use.operation ? readEventExtension(use.operation) : {};
  const get = (key: string) => optionalString(field(ctx, use, key)?.value);
  const name = own.event ?? fromOperation.event ?? get('name') ?? get('messageId') ?? use.fallbackName;
  const match = own.match ?? fromOperation.match;
  const summary = get('summary') ?? get('title');
  const description = get('description');
  const deprecated = field(ctx, use, 'deprecated')?.value === true;
  return {
    name,
    ...(summary !== undefined ? { summary } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(deprecated ? { deprecated: true } : {}),
    body,
    ...(headers ? { headers } : {}),
    bodyExamples: examples,
    ...(match && Object.keys(match).length > 0 ? { match } : {}),
    source: where(message),
    ...(use.direction ? { direction: use.direction } : {}),
    identity: `${message.doc.id}#${message.pointer}`,
    operation: use.operation ?? message,
  };
}
