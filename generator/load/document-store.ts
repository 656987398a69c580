/**
 * The set of documents one contract is made of: the root file plus every file (or, when allowed,
 * URL) its `$ref`s reach. Loading is async and happens up front (`open`); resolution afterwards is
 * synchronous, so parsers and the schema normaliser never await. A referenced document that cannot be
 * loaded is remembered as a failure and reported only if a `$ref` into it is actually followed.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GeneratorError } from '../errors.js';
import { appendPointer, fragmentToPointer, lookup, parsePointer } from './pointer.js';
import { type ParsedDocument, parseDocumentText, readDocumentFile, syntaxOf } from './read-document.js';

export interface StoreOptions {
  readonly allowRemoteRefs?: boolean;
  readonly fetch?: typeof fetch;
  /** Parsed documents shared between the contracts of one `loadContracts` call. */
  readonly cache?: Map<string, Promise<ParsedDocument>>;
}

/** A document as part of a contract: `display` is the path shown in messages and `source` strings. */
export interface SourceDocument {
  readonly id: string;
  readonly display: string;
  readonly value: unknown;
  rawScalar(tokens: readonly string[]): string | undefined;
}

/** A value inside a document: what `$ref`s in it are relative to, and where to point diagnostics. */
export interface Loc {
  readonly doc: SourceDocument;
  readonly pointer: string;
  readonly value: unknown;
}

export function child(loc: Loc, key: string | number): Loc {
  const value = loc.value as Record<string | number, unknown> | undefined;
  return { doc: loc.doc, pointer: appendPointer(loc.pointer, key), value: value?.[key] };
}

/** `file#/pointer`, the form of `source` strings in the model. */
export function where(loc: Loc): string {
  return `${loc.doc.display}#${loc.pointer}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The result of following a chain of `$ref`s: the final value plus the siblings met on the way. */
export interface Dereferenced {
  readonly loc: Loc;
  /** Keywords written next to `$ref` (nearest wins), e.g. a 3.1 `summary`/`description` override. */
  readonly siblings?: Readonly<Record<string, unknown>>;
}

type Slot = { ok: true; doc: SourceDocument } | { ok: false; error: GeneratorError };

const REMOTE = /^https?:\/\//i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export class DocumentStore {
  readonly root: SourceDocument;
  private readonly slots: Map<string, Slot>;
  private readonly options: StoreOptions;

  private constructor(root: SourceDocument, slots: Map<string, Slot>, options: StoreOptions) {
    this.root = root;
    this.slots = slots;
    this.options = options;
  }

  /** Loads `file` (errors throw) and every document reachable through `$ref`s (errors deferred). */
  static async open(file: string, options: StoreOptions = {}): Promise<DocumentStore> {
    // A URL given as the input is fetched (its own remote $refs still need allowRemoteRefs).
    const id = REMOTE.test(file) ? file : path.resolve(file);
    const parsed = await cached(options, id, () =>
      REMOTE.test(id) ? fetchDocument(id, options.fetch) : readDocumentFile(id, file),
    );
    const root: SourceDocument = { ...parsed, display: file, rawScalar: parsed.rawScalar };
    const slots = new Map<string, Slot>([[id, { ok: true, doc: root }]]);
    const store = new DocumentStore(root, slots, options);
    await store.preload();
    return store;
  }

  /** Where a document is shown: relative paths are expressed the way the root file was given. */
  private display(id: string): string {
    if (REMOTE.test(id)) return id;
    if (REMOTE.test(this.root.id)) return id;
    const rel = path.relative(path.dirname(this.root.id), id);
    return path.join(path.dirname(this.root.display), rel);
  }

  private async preload(): Promise<void> {
    const queue: SourceDocument[] = [this.root];
    for (let doc = queue.shift(); doc; doc = queue.shift()) {
      const targets = new Set<string>();
      collectExternalRefs(doc.value, (ref) => {
        const target = this.targetId(ref.split('#')[0] ?? '', doc);
        if (target.kind === 'document' && !this.slots.has(target.id)) targets.add(target.id);
      });
      const loaded = await Promise.all(
        [...targets].map(async (id): Promise<[string, Slot]> => {
          if (REMOTE.test(id) && !this.options.allowRemoteRefs) {
            return [id, { ok: false, error: refused(id) }];
          }
          try {
            const display = this.display(id);
            const parsed = await cached(this.options, id, () =>
              REMOTE.test(id) ? fetchDocument(id, this.options.fetch) : readDocumentFile(id, display),
            );
            return [id, { ok: true, doc: { ...parsed, display, rawScalar: parsed.rawScalar } }];
          } catch (error) {
            if (error instanceof GeneratorError) return [id, { ok: false, error }];
            throw error;
          }
        }),
      );
      for (const [id, slot] of loaded) {
        this.slots.set(id, slot);
        if (slot.ok) queue.push(slot.doc);
      }
    }
  }

  private targetId(
    uri: string,
    from: SourceDocument,
  ): { kind: 'document'; id: string } | { kind: 'unsupported'; reason: string } {
    if (uri === '') return { kind: 'document', id: from.id };
    try {
      if (REMOTE.test(uri)) return { kind: 'document', id: new URL(uri).href };
      if (/^file:/i.test(uri)) return { kind: 'document', id: fileURLToPath(uri) };
      if (REMOTE.test(from.id)) return { kind: 'document', id: new URL(uri, from.id).href };
    } catch {
      return { kind: 'unsupported', reason: `malformed URI ${uri}` };
    }
    if (SCHEME.test(uri) && !/^[a-z]:[\\/]/i.test(uri)) {
      return { kind: 'unsupported', reason: `unsupported URI scheme in ${uri}` };
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(uri);
    } catch {
      return { kind: 'unsupported', reason: `malformed percent-encoding in ${uri}` };
    }
    return { kind: 'document', id: path.resolve(path.dirname(from.id), decoded) };
  }

  /** The root value of a document of this contract, loaded or not. */
  document(id: string): SourceDocument | undefined {
    const slot = this.slots.get(id);
    return slot?.ok ? slot.doc : undefined;
  }

  /** Resolves one `$ref` string written at `from` (one hop). */
  resolve(ref: string, from: Loc): Loc {
    const hash = ref.indexOf('#');
    const uri = hash < 0 ? ref : ref.slice(0, hash);
    const fragment = hash < 0 ? '' : ref.slice(hash + 1);
    const target = this.targetId(uri, from.doc);
    const refPointer = appendPointer(from.pointer, '$ref');
    if (target.kind === 'unsupported') {
      throw new GeneratorError('ref_not_found', `cannot resolve $ref "${ref}": ${target.reason}`, {
        file: from.doc.display,
        pointer: refPointer,
        expected: 'a relative file path, an http(s) URL or a #/json/pointer',
      });
    }
    const slot = this.slots.get(target.id);
    if (!slot) {
      // Only reachable for refs found outside the preload scan (none today); fail clearly anyway.
      throw new GeneratorError('ref_not_found', `$ref "${ref}" points to a document that was not loaded`, {
        file: from.doc.display,
        pointer: refPointer,
      });
    }
    if (!slot.ok) {
      const error = slot.error;
      if (error.code === 'remote_ref_refused') {
        throw new GeneratorError('remote_ref_refused', `remote $ref "${ref}" is not allowed`, {
          file: from.doc.display,
          pointer: refPointer,
          expected: 'a local file reference, or allowRemoteRefs: true (--allow-remote-refs)',
        });
      }
      if (error.code === 'file_not_found') {
        throw new GeneratorError(
          'ref_not_found',
          `$ref "${ref}" points to a missing file ${error.file ?? target.id}`,
          { file: from.doc.display, pointer: refPointer, expected: 'an existing file', cause: error },
        );
      }
      if (error.code === 'network_error') {
        // Name where the $ref is written, not only the URL that failed.
        throw new GeneratorError('network_error', `$ref "${ref}": ${error.message}`, {
          file: from.doc.display,
          pointer: refPointer,
          expected: error.expected ?? 'a reachable URL (or a local copy of the document)',
          cause: error,
        });
      }
      throw error;
    }
    const pointer = fragmentToPointer(fragment);
    const tokens = pointer === undefined ? undefined : parsePointer(pointer);
    if (pointer === undefined || tokens === undefined) {
      throw new GeneratorError('ref_not_found', `$ref "${ref}" has a fragment that is not a JSON pointer`, {
        file: from.doc.display,
        pointer: refPointer,
        expected: 'a fragment like #/components/schemas/Name ($anchor and $id refs are not supported)',
      });
    }
    const found = lookup(slot.doc.value, tokens);
    if (!found.found) {
      const missing = `${slot.doc.display}#${pointer}`;
      throw new GeneratorError('ref_not_found', `$ref "${ref}" not found: ${missing} does not exist`, {
        file: from.doc.display,
        pointer: refPointer,
        expected: `an existing node (nothing at token ${found.missingAt + 1} of ${pointer || '/'})`,
      });
    }
    return { doc: slot.doc, pointer, value: found.value };
  }

  /**
   * Follows `$ref` objects until a value that is not a reference; a chain that comes back to itself
   * (`A: {$ref: A}`, `A → B → A`) is a `ref_cycle`. Siblings of `$ref` are collected, nearest first.
   */
  deref(loc: Loc): Dereferenced {
    let current = loc;
    let siblings: Record<string, unknown> | undefined;
    let seen: Set<string> | undefined;
    while (isRecord(current.value) && typeof current.value.$ref === 'string') {
      const node = current.value;
      for (const key of Object.keys(node)) {
        if (key === '$ref') continue;
        siblings ??= {};
        if (!(key in siblings)) siblings[key] = node[key];
      }
      seen ??= new Set([`${loc.doc.id}#${loc.pointer}`]);
      const next = this.resolve(node.$ref as string, current);
      const key = `${next.doc.id}#${next.pointer}`;
      if (seen.has(key)) {
        throw new GeneratorError('ref_cycle', `$ref "${node.$ref as string}" only refers back to itself`, {
          file: loc.doc.display,
          pointer: appendPointer(loc.pointer, '$ref'),
          expected: 'a $ref chain that ends in a schema or object, not a loop of $refs',
        });
      }
      seen.add(key);
      current = next;
    }
    return siblings ? { loc: current, siblings } : { loc: current };
  }
}

function refused(id: string): GeneratorError {
  return new GeneratorError('remote_ref_refused', `remote reference ${id} is not allowed`, {
    file: id,
    expected: 'a local file reference, or allowRemoteRefs: true',
  });
}

function cached(
  options: StoreOptions,
  id: string,
  load: () => Promise<ParsedDocument>,
): Promise<ParsedDocument> {
  if (!options.cache) return load();
  let entry = options.cache.get(id);
  if (!entry) {
    entry = load();
    options.cache.set(id, entry);
  }
  return entry;
}

async function fetchDocument(url: string, fetchImpl: typeof fetch | undefined): Promise<ParsedDocument> {
  const doFetch = fetchImpl ?? globalThis.fetch;
  let response: Response;
  try {
    response = await doFetch(url, {
      headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' },
    });
  } catch (error) {
    throw new GeneratorError('network_error', `cannot fetch ${url}: ${(error as Error).message}`, {
      file: url,
      cause: error,
    });
  }
  if (!response.ok) {
    const code = response.status === 404 ? 'file_not_found' : 'network_error';
    throw new GeneratorError(code, `fetching ${url} failed with HTTP ${response.status}`, {
      file: url,
      expected: 'HTTP 200',
    });
  }
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const syntax = /json/i.test(type) ? 'json' : /yaml/i.test(type) ? 'yaml' : syntaxOf(url);
  return parseDocumentText(text, url, url, syntax);
}

/** Calls `visit` with every `$ref` string that names another document (not `#...`). */
function collectExternalRefs(root: unknown, visit: (ref: string) => void): void {
  const stack: unknown[] = [root];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === 'object') stack.push(item);
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') {
        if (!item.startsWith('#')) visit(item);
      } else if (item !== null && typeof item === 'object') {
        stack.push(item);
      }
    }
  }
}
