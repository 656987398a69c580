/**
 * The generator's front end: files or directories in, `ContractModel`s out.
 * A directory means every `*.yaml|*.yml|*.json` directly in it (not recursive), sorted by name;
 * files there without an `openapi`/`asyncapi` key (shared component files) are skipped with an info
 * diagnostic. A file named explicitly must be a contract.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { BodyFormats, EnvelopeConfig, SelectorConfig, SignatureConfig } from '@gen-webhooks/runtime';
import { type Diagnostic, GeneratorError } from '../errors.js';
import { detectFormat, EXPECTED_FORMAT } from '../load/detect-format.js';
import { DocumentStore, isRecord, type Loc } from '../load/document-store.js';
import type { ParsedDocument } from '../load/read-document.js';
import type { ContractModel, EventModel, InputFormat } from '../model.js';
import { mergeDirection, splitDirections } from './asyncapi-direction.js';
import { parseAsyncApi2 } from './asyncapi2.js';
import { parseAsyncApi3 } from './asyncapi3.js';
import { checkDelivery } from './check-delivery.js';
import { warnClosedAllOf } from './closed-allof.js';
import type { EventDraft, ParseContext } from './context.js';
import { contractName } from './contract-name.js';
import { deriveDelivery } from './derive-envelope.js';
import { expandDiscriminatedBases } from './discriminator-union.js';
import { DEFAULT_SIGNATURE, EXTENSION_KEY, readRootExtension } from './extension.js';
import { GITHUB_ENVELOPE, GITHUB_SELECTOR, GITHUB_SIGNATURE, isGitHubDocument } from './github.js';
import { SchemaNormalizer } from './normalize-schema.js';
import { parseOpenApi } from './openapi.js';
import { payloadOf } from './payload.js';
import { signatureCoverage } from './signature-coverage.js';
import { readVendorDeclarations, warnUnknownSignatureExtensions } from './vendor-signatures.js';

export interface LoadOptions {
  /** Follow `http(s)` `$ref`s (refused with `remote_ref_refused` otherwise). */
  allowRemoteRefs?: boolean;
  /** Directory local `$ref`s may read below; default: each contract's own directory. */
  refRoot?: string;
  /** Used for remote refs; defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Apply GitHub conventions even when the document is not recognised as GitHub's. */
  preset?: 'github';
  /**
   * The signature scheme, over the document's own declaration (per contract when a function:
   * `undefined` keeps the document's). Envelope derivation reads it: ids and timestamps in signed
   * headers are not demanded from the body.
   */
  signature?: SignatureConfig | ((contract: { name: string; file: string }) => SignatureConfig | undefined);
}

export interface LoadResult {
  contracts: ContractModel[];
  diagnostics: Diagnostic[];
}

const CONTRACT_FILE = /\.(ya?ml|json)$/i;

/** Diagnostics that mean "an operation or message was not turned into an event". */
const SKIP_CODES = new Set([
  'unsupported_schema_format',
  'unsupported_media_type',
  'no_content',
  'no_request_body',
  'no_message',
  'invalid_path_item',
  'invalid_message',
]);

export async function loadContracts(
  inputs: readonly string[],
  options: LoadOptions = {},
): Promise<LoadResult> {
  const cache = new Map<string, Promise<ParsedDocument>>();
  const contracts: ContractModel[] = [];
  const diagnostics: Diagnostic[] = [];
  const seenFiles = new Set<string>();
  const byName = new Map<string, string>();
  for (const input of inputs) {
    let isDirectory = false;
    try {
      if (!/^https?:\/\//i.test(input)) isDirectory = (await stat(input)).isDirectory();
    } catch (error) {
      throw new GeneratorError('file_not_found', `file or directory not found: ${input}`, {
        file: input,
        expected: 'an existing contract file or a directory of contract files',
        cause: error,
      });
    }
    const files = isDirectory
      ? (await readdir(input, { withFileTypes: true }))
          .filter((entry) => entry.isFile() && CONTRACT_FILE.test(entry.name))
          .map((entry) => entry.name)
          .sort()
          .map((name) => path.join(input, name))
      : [input];
    for (const file of files) {
      const absolute = /^https?:\/\//i.test(file) ? file : path.resolve(file);
      if (seenFiles.has(absolute)) continue;
      seenFiles.add(absolute);
      const loaded = await loadOne(file, options, cache, isDirectory);
      if (!loaded) {
        diagnostics.push({
          level: 'info',
          code: 'not_a_contract',
          message: `${file} has no \`openapi\` or \`asyncapi\` key; skipped (a shared file?)`,
          file,
        });
        continue;
      }
      const previous = byName.get(loaded.name);
      if (previous !== undefined) {
        throw new GeneratorError(
          'identifier_collision',
          `contracts ${previous} and ${file} both get the name "${loaded.name}"`,
          { file, expected: 'contract files with distinct base names' },
        );
      }
      byName.set(loaded.name, file);
      contracts.push(loaded);
      diagnostics.push(...loaded.diagnostics);
    }
  }
  return { contracts, diagnostics };
}

export async function loadContract(file: string, options: LoadOptions = {}): Promise<ContractModel> {
  const loaded = await loadOne(file, options, new Map(), false);
  // loadOne only skips files found in a directory; an explicit one throws unknown_format itself.
  if (!loaded) throw new GeneratorError('unknown_format', `not a webhook contract: ${file}`, { file });
  return loaded;
}

async function loadOne(
  file: string,
  options: LoadOptions,
  cache: Map<string, Promise<ParsedDocument>>,
  fromDirectory: boolean,
): Promise<ContractModel | undefined> {
  const store = await DocumentStore.open(file, {
    cache,
    ...(options.allowRemoteRefs !== undefined ? { allowRemoteRefs: options.allowRemoteRefs } : {}),
    ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
    ...(options.refRoot !== undefined ? { refRoot: options.refRoot } : {}),
  });
  const detection = detectFormat(store.root);
  if (detection.kind === 'not-contract') {
    if (fromDirectory) return undefined;
    throw new GeneratorError('unknown_format', `not a webhook contract: ${detection.reason}`, {
      file,
      pointer: '',
      expected: EXPECTED_FORMAT,
    });
  }
  const format = detection.format;
  const root: Loc = { doc: store.root, pointer: '', value: store.root.value };
  const doc = store.root.value as Record<string, unknown>;
  const diagnostics: Diagnostic[] = [];
  const extension = readRootExtension(root);
  const github =
    options.preset === 'github' || (format.startsWith('openapi') && isGitHubDocument(store, root));
  if (github && options.preset !== 'github') {
    diagnostics.push({
      level: 'info',
      code: 'github_detected',
      message:
        'recognised as a GitHub webhook document: GitHub event names, selector, envelope and signature',
      file,
    });
  }
  const rootInfo = isRecord(doc.info) ? doc.info : {};
  const name = contractName(file, typeof rootInfo.title === 'string' ? rootInfo.title : undefined);
  const override =
    typeof options.signature === 'function' ? options.signature({ name, file }) : options.signature;
  const schemas = new SchemaNormalizer(store, diagnostics);
  const ctx: ParseContext = { store, schemas, diagnostics, github };
  const directed = splitDirections(
    uniqueDrafts(
      ctx,
      format === 'asyncapi-2'
        ? parseAsyncApi2(ctx, root)
        : format === 'asyncapi-3'
          ? parseAsyncApi3(ctx, root)
          : parseOpenApi(ctx, root, format === 'openapi-3.1'),
    ),
  );
  // Everything below (signature, envelope, selector, matches) is about the webhook events only.
  const drafts = directed.events;
  if (directed.received !== undefined) {
    const names = directed.received.map((d) => d.name).sort();
    const listed = names.slice(0, 8).join(', ') + (names.length > 8 ? `, and ${names.length - 8} more` : '');
    diagnostics.push({
      level: 'info',
      code: 'client_messages',
      message: `both directions: the ${names.length} message(s) the application receives (${format === 'asyncapi-2' ? 'publish' : 'receive'} operations) are ClientMessages, not webhook events: ${listed}`,
      file,
    });
  }
  // Precedence: the caller's override, x-gen-webhooks, another generator's dialect, GitHub, default.
  const vendor = github ? {} : readVendorDeclarations(ctx, root, drafts);
  const declared = override ?? extension.signature ?? vendor.signature;
  const signature = declared ?? (github ? GITHUB_SIGNATURE : DEFAULT_SIGNATURE);
  if (declared === undefined && !github) warnUnknownSignatureExtensions(ctx, root, drafts);
  const declaredSelector = extension.selector ?? vendor.selector;
  const derived = github
    ? {
        envelope: extension.envelope ?? GITHUB_ENVELOPE,
        selector: extension.selector ?? GITHUB_SELECTOR,
        matches: new Map<string, string>(),
      }
    : deriveDelivery(ctx, drafts, {
        file: store.root.display,
        signature,
        ...(extension.envelope ? { envelope: extension.envelope } : {}),
        ...(declaredSelector ? { selector: declaredSelector } : {}),
      });
  const { envelope, selector } = derived;
  checkDelivery(
    { signature, envelope, selector },
    {
      file,
      ...(override === undefined && extension.signature !== undefined
        ? { signature: `/${EXTENSION_KEY}/signature` }
        : {}),
      ...(extension.envelope !== undefined ? { envelope: `/${EXTENSION_KEY}/envelope` } : {}),
    },
  );
  const matches = new Map([...derived.matches, ...(vendor.matches ?? [])]);
  const events = finalizeEvents(ctx, drafts, { envelope, selector, matches });
  const received = directed.received && receivedMessages(ctx, directed.received);
  if (events.length === 0) {
    const skipped = diagnostics.filter((d) => SKIP_CODES.has(d.code));
    const listed = skipped.slice(0, 5).map((d) => `${d.message} at #${d.pointer ?? ''}`);
    const more = skipped.length > listed.length ? `; and ${skipped.length - listed.length} more` : '';
    const why = skipped.length > 0 ? `; ${skipped.length} skipped: ${listed.join('; ')}${more}` : '';
    throw new GeneratorError('no_events', `no webhook events found in ${file}${why}`, {
      file,
      pointer: '',
      expected: expectedEvents(format),
    });
  }
  const info = isRecord(doc.info) ? doc.info : {};
  const title = typeof info.title === 'string' && info.title.trim() !== '' ? info.title : name;
  let version = typeof info.version === 'string' ? info.version : undefined;
  if (version === undefined && (typeof info.version === 'number' || typeof info.version === 'boolean')) {
    version = store.root.rawScalar(['info', 'version']) ?? String(info.version);
  }
  if (version === undefined) {
    diagnostics.push({
      level: 'warning',
      code: 'missing_version',
      message: 'info.version is missing; using 0.0.0',
      file,
      pointer: '/info',
    });
    version = '0.0.0';
  }
  const description =
    typeof info.description === 'string' && info.description.trim() !== '' ? info.description : undefined;
  diagnostics.push(...signatureCoverage(file, { signature, envelope, selector }, extension));
  const modelSchemas = expandDiscriminatedBases(schemas.finish(), diagnostics);
  warnClosedAllOf(
    modelSchemas,
    [...events, ...(received ?? [])].map((e) => e.payload),
    diagnostics,
  );
  const model: ContractModel = {
    name,
    title,
    version,
    ...(description !== undefined ? { description } : {}),
    format,
    file,
    events,
    ...(received ? { received } : {}),
    schemas: modelSchemas,
    signature,
    envelope,
    selector,
    ...(extension.retry ? { retry: extension.retry } : {}),
    ...(extension.handshakes ? { handshakes: extension.handshakes } : {}),
    ...bodyFormats(drafts),
    diagnostics,
  };
  return model;
}

/** The non-JSON body formats the events use, for the receiver's decoder. */
function bodyFormats(drafts: readonly EventDraft[]): { bodies?: BodyFormats } {
  const kinds = new Set(drafts.flatMap((d) => (d.media ? [d.media.kind] : [])));
  if (kinds.size === 0) return {};
  const jsonFields = [...new Set(drafts.flatMap((d) => d.media?.jsonFields ?? []))].sort();
  return {
    bodies: {
      ...(kinds.has('form') ? { form: true } : {}),
      ...(kinds.has('multipart') ? { multipart: true } : {}),
      ...(jsonFields.length > 0 ? { jsonFields } : {}),
    },
  };
}

function expectedEvents(format: InputFormat): string {
  switch (format) {
    case 'openapi-3.1':
      return 'at least one `webhooks`, `x-webhooks` or `callbacks` operation with a JSON request body';
    case 'openapi-3.0':
      return 'at least one `callbacks` or `x-webhooks` operation with a JSON request body';
    case 'asyncapi-2':
      return 'at least one channel publish/subscribe message with a JSON Schema payload';
    case 'asyncapi-3':
      return 'at least one send/receive operation whose messages have a JSON Schema payload';
  }
}

/** Merges re-declarations of one event and renames true duplicates (document order kept). */
function uniqueDrafts(ctx: ParseContext, drafts: readonly EventDraft[]): EventDraft[] {
  const taken = new Map<string, string>(); // name → identity
  const out: EventDraft[] = [];
  const index = new Map<string, number>(); // identity → position in out
  for (const draft of drafts) {
    let name = draft.name;
    const owner = taken.get(name);
    const seen = index.get(draft.identity);
    if (owner === draft.identity || seen !== undefined) {
      // The same operation/message reached twice (shared callback, message used by two channels or
      // by a send and a receive operation): one event, in each direction it is used.
      const first = out[seen ?? -1];
      const direction = first && mergeDirection(first.direction, draft.direction);
      if (first && direction !== first.direction && seen !== undefined)
        out[seen] = { ...first, ...(direction ? { direction } : {}) };
      continue;
    }
    if (owner !== undefined) {
      let n = 2;
      while (taken.has(`${draft.name}_${n}`)) n++;
      name = `${draft.name}_${n}`;
      ctx.diagnostics.push({
        level: 'warning',
        code: 'duplicate_event',
        message: `event name "${draft.name}" is used twice; the second one (${draft.source}) is named "${name}"`,
        ...splitSource(draft.source),
      });
    }
    taken.set(name, draft.identity);
    index.set(draft.identity, out.length);
    out.push(name === draft.name ? draft : { ...draft, name });
  }
  return out;
}

/** Payloads cut per envelope, match values (declared, else derived), default matches dropped, sorted. */
function finalizeEvents(
  ctx: ParseContext,
  drafts: readonly EventDraft[],
  delivery: { envelope: EnvelopeConfig; selector: SelectorConfig; matches: ReadonlyMap<string, string> },
): EventModel[] {
  const { envelope, selector } = delivery;
  const events: EventModel[] = [];
  for (const draft of drafts) {
    const name = draft.name;
    const derived = delivery.matches.get(name);
    let match = draft.match ?? (derived === undefined ? undefined : { body: derived });
    if (match && selector.kind !== 'header' && match.header === undefined && match.body === name)
      match = undefined;
    if (selector.kind === 'header' && match?.header === undefined) {
      throw new GeneratorError(
        'invalid_extension',
        `event "${name}" has no header value for the "${selector.header}" selector`,
        {
          ...splitSource(draft.source),
          expected: 'x-gen-webhooks: { match: { header: <value> } } on the operation/message',
        },
      );
    }
    const { payload, examples } = payloadOf(ctx, envelope, draft.body, draft.bodyExamples);
    const {
      identity: _identity,
      match: _match,
      body: _body,
      bodyExamples: _examples,
      media: _media,
      operation: _operation,
      operationId: _operationId,
      ...rest
    } = draft;
    events.push({ ...rest, name, payload, examples, ...(match ? { match } : {}) });
  }
  events.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  warnAmbiguousMatches(ctx, events, selector);
  return events;
}

/** Two events a receiver cannot tell apart (same selector values) get a warning each. */
function warnAmbiguousMatches(
  ctx: ParseContext,
  events: readonly EventModel[],
  selector: SelectorConfig,
): void {
  if (selector.kind === 'schema') return; // no selector values: fixtures-file.ts checks the schemas
  const owners = new Map<string, string>();
  for (const event of events) {
    const key =
      selector.kind === 'header'
        ? `${event.match?.header ?? ''}\u0000${selector.bodyField === undefined ? '' : (event.match?.body ?? '')}`
        : (event.match?.body ?? event.name);
    const owner = owners.get(key);
    if (owner === undefined) {
      owners.set(key, event.name);
      continue;
    }
    ctx.diagnostics.push({
      level: 'warning',
      code: 'ambiguous_match',
      message:
        selector.kind === 'header'
          ? `events "${owner}" and "${event.name}" have the same selector values; a receiver cannot tell them apart`
          : `events "${owner}" and "${event.name}" have the same type value; a receiver chooses between them by their payload schemas`,
      ...splitSource(event.source),
    });
  }
}

/** The messages the application receives: whole bodies (no envelope is cut), no selector values. */
function receivedMessages(ctx: ParseContext, drafts: readonly EventDraft[]): EventModel[] {
  const out = drafts.map((draft): EventModel => {
    const { payload, examples } = payloadOf(ctx, { kind: 'bare' }, draft.body, draft.bodyExamples);
    return {
      name: draft.name,
      ...(draft.direction ? { direction: draft.direction } : {}),
      ...(draft.summary !== undefined ? { summary: draft.summary } : {}),
      ...(draft.description !== undefined ? { description: draft.description } : {}),
      ...(draft.deprecated ? { deprecated: true } : {}),
      payload,
      ...(draft.headers ? { headers: draft.headers } : {}),
      examples,
      source: draft.source,
    };
  });
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function splitSource(source: string): { file: string; pointer: string } {
  const hash = source.indexOf('#');
  return { file: source.slice(0, hash), pointer: source.slice(hash + 1) };
}
