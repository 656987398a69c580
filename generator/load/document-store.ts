/**
 * The set of documents one contract is made of: the root file plus every file (or, when allowed,
 * URL) its `$ref`s reach. Loading is async and happens up front (`open`); resolution afterwards is
 * synchronous, so parsers and the schema normaliser never await. A referenced document that cannot be
 * loaded (missing, too deep, outside the ref root) is remembered as a failure and reported only if a
 * `$ref` into it is actually followed. Following chains of `$ref`s is memoised, so resolving every
 * link of a long chain costs one walk of it, not one per link.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GeneratorError } from '../errors.js';
import { documentTooDeep } from './limits.js';
import { appendPointer, fragmentToPointer, lookup, parsePointer } from './pointer.js';
import { type ParsedDocument, parseDocumentText, readDocumentFile, syntaxOf } from './read-document.js';
import { outsideRoot, type RefRoot, refRoot } from './ref-root.js';
import { pointerTo, scanDocument } from './scan-document.js';

export interface StoreOptions {
  readonly allowRemoteRefs?: boolean;
  /**
   * Directory local `$ref`s may read below (absolute, or relative to the process's cwd). Default:
   * the directory of the root document; a remote root document may then read no local file.
   */
  readonly refRoot?: string;
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

/** A followed chain: where it ends, and the siblings from this link on (nearest first). */
type Chain = { readonly end: Loc; readonly siblings: Readonly<Record<string, unknown>> | undefined };

const REMOTE = /^https?:\/\//i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export class DocumentStore {
  readonly root: SourceDocument;
  private readonly slots: Map<string, Slot>;
  private readonly options: StoreOptions;
  private readonly refRoot: RefRoot | undefined;
  /** Followed `$ref` chains by the id of the link they start at. */
  private readonly chains = new Map<string, Chain>();

  private constructor(
    root: SourceDocument,
    slots: Map<string, Slot>,
    options: StoreOptions,
    refRoot: RefRoot | undefined,
  ) {
    this.root = root;
    this.slots = slots;
    this.options = options;
    this.refRoot = refRoot;
  }

  /** Loads `file` (errors throw) and every document reachable through `$ref`s (errors deferred). */
  static async open(file: string, options: StoreOptions = {}): Promise<DocumentStore> {
    const remote = REMOTE.test(file);
    const id = remote ? file : path.resolve(file);
    // A URL given as the input is fetched (its own remote $refs still need allowRemoteRefs).
    const parsed = await cached(options, id, () =>
      remote ? fetchDocument(id, options.fetch) : readDocumentFile(id, file),
    );
    const root: SourceDocument = { ...parsed, display: file, rawScalar: parsed.rawScalar };
    const slots = new Map<string, Slot>([[id, { ok: true, doc: root }]]);
    const confined = await refRoot(id, file, remote, options.refRoot);
    const store = new DocumentStore(root, slots, options, confined);
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
      const deep = scanDocument(doc.value, (ref) => {
        const target = this.targetId(ref.split('#')[0] ?? '', doc);
        if (target.kind === 'document' && !this.slots.has(target.id)) targets.add(target.id);
      });
      if (deep !== undefined) {
        const error = documentTooDeep(doc.display, pointerTo(doc.value, deep));
        if (doc === this.root) throw error;
        this.slots.set(doc.id, { ok: false, error });
        continue;
      }
      const loaded = await Promise.all(
        [...targets].map(async (id): Promise<[string, Slot]> => {
          if (REMOTE.test(id) && !this.options.allowRemoteRefs) {
            return [id, { ok: false, error: refused(id) }];
          }
          if (!REMOTE.test(id) && (await outsideRoot(this.refRoot, id))) {
            return [id, { ok: false, error: outside(this.display(id)) }];
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
      if (error.code === 'ref_outside_root') {
        const root = this.refRoot;
        throw new GeneratorError(
          'ref_outside_root',
          root === undefined
            ? `$ref "${ref}" reads a local file (${error.file}) from a remote contract`
            : `$ref "${ref}" points outside ${root.display}: ${error.file}`,
          {
            file: from.doc.display,
            pointer: refPointer,
            expected: `a file inside ${root?.display ?? 'the ref root'} (a wider directory needs refRoot / --ref-root <dir>)`,
          },
        );
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
   * Every link walked is remembered with where it ends, so a later deref from any of them is one step.
   */
  deref(loc: Loc): Dereferenced {
    if (!isRef(loc.value)) return { loc };
    const walked: { id: string; node: Record<string, unknown> }[] = [];
    const seen = new Set<string>();
    let current = loc;
    let tail: Chain | undefined;
    while (isRef(current.value)) {
      const id = `${current.doc.id}#${current.pointer}`;
      tail = this.chains.get(id);
      if (tail !== undefined) break;
      if (seen.has(id)) {
        throw new GeneratorError('ref_cycle', `$ref "${loc.value.$ref}" only refers back to itself`, {
          file: loc.doc.display,
          pointer: appendPointer(loc.pointer, '$ref'),
          expected: 'a $ref chain that ends in a schema or object, not a loop of $refs',
        });
      }
      seen.add(id);
      walked.push({ id, node: current.value });
      current = this.resolve(current.value.$ref, current);
    }
    let chain: Chain = tail ?? { end: current, siblings: undefined };
    for (let i = walked.length - 1; i >= 0; i--) {
      const { id, node } = walked[i] as (typeof walked)[number];
      chain = { end: chain.end, siblings: withSiblings(node, chain.siblings) };
      this.chains.set(id, chain);
    }
    return chain.siblings ? { loc: chain.end, siblings: chain.siblings } : { loc: chain.end };
  }
}

function isRef(value: unknown): value is Record<string, unknown> & { $ref: string } {
  return isRecord(value) && typeof value.$ref === 'string';
}

/** `node`'s keywords beside `$ref` over `further` (the siblings met later in the chain). */
function withSiblings(
  node: Record<string, unknown>,
  further: Readonly<Record<string, unknown>> | undefined,
): Readonly<Record<string, unknown>> | undefined {
  const keys = Object.keys(node).filter((key) => key !== '$ref');
  if (keys.length === 0) return further;
  const out: Record<string, unknown> = {};
  for (const key of keys) setOwn(out, key, node[key]);
  for (const [key, value] of Object.entries(further ?? {}))
    if (!Object.hasOwn(out, key)) setOwn(out, key, value);
  return out;
}

/** An own data property, even for `__proto__`, which assignment would turn into a prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function outside(display: string): GeneratorError {
  return new GeneratorError('ref_outside_root', `${display} is outside the ref root`, { file: display });
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
