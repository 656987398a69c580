import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { GeneratorError } from '../errors.js';
import { DocumentStore, type Loc } from './document-store.js';
import { formatPointer, pointerToFragment } from './pointer.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-store-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const dir = (): string => mkdtempSync(path.join(tmp, 'case-'));

function rootLoc(store: DocumentStore): Loc {
  return { doc: store.root, pointer: '', value: store.root.value };
}

async function failure(promise: Promise<unknown> | (() => unknown)): Promise<GeneratorError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    if (error instanceof GeneratorError) return error;
    throw error;
  }
  throw new Error('expected a GeneratorError');
}

/** Every node of a JSON value with its token path (bounded). */
function nodes(value: unknown, limit = 40): { tokens: string[]; value: unknown }[] {
  const out: { tokens: string[]; value: unknown }[] = [];
  const walk = (v: unknown, tokens: string[]) => {
    if (out.length >= limit) return;
    out.push({ tokens, value: v });
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) walk(v[i], [...tokens, String(i)]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) walk(item, [...tokens, k]);
    }
  };
  walk(value, []);
  return out;
}

/** JSON values whose keys are awkward for pointers (`/`, `~`, `%`, spaces) but never `$ref`. */
const awkwardKey = fc
  .oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a/b', 'm~n', '~1', '50%', 'My Pet', '#', '..', ''))
  // The loader reads YAML merge keys (`<<: *base`, common in OpenAPI files), so a plain `<<` key is
  // a merge, not data; `yaml.stringify` writes it unquoted.
  .filter((k) => k !== '<<');
const leaf = fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.boolean(), fc.constant(null));
const { tree } = fc.letrec<{ tree: unknown }>((rec) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(rec('tree'), { maxLength: 3 }),
    fc.dictionary(
      awkwardKey.filter((k) => k !== '$ref'),
      rec('tree'),
      { maxKeys: 4 },
    ),
  ),
}));
const document = fc.dictionary(
  awkwardKey.filter((k) => k !== '$ref' && k !== '__refs'),
  tree,
  { minKeys: 1, maxKeys: 4 },
);

describe('DocumentStore', () => {
  it('resolves refs to every node of arbitrary documents, in the same file and across files', async () => {
    await fc.assert(
      fc.asyncProperty(document, fc.boolean(), fc.boolean(), async (target, crossFile, asYaml) => {
        const d = dir();
        const targets = nodes(target);
        const targetName = 'target doc.json';
        const refs: Record<string, { $ref: string }> = {};
        targets.forEach((node, i) => {
          const tokens = crossFile ? node.tokens : ['t', ...node.tokens];
          const fragment = pointerToFragment(formatPointer(tokens));
          refs[`r${i}`] = { $ref: `${crossFile ? encodeURIComponent(targetName) : ''}#${fragment}` };
        });
        const rootName = asYaml ? 'root.yaml' : 'root.json';
        const root = crossFile ? { __refs: refs } : { t: target, __refs: refs };
        writeFileSync(path.join(d, rootName), asYaml ? stringify(root) : JSON.stringify(root));
        if (crossFile) writeFileSync(path.join(d, targetName), JSON.stringify(target));
        const store = await DocumentStore.open(path.join(d, rootName));
        const refsLoc: Loc = { doc: store.root, pointer: '/__refs', value: refs };
        targets.forEach((node, i) => {
          const at: Loc = { doc: store.root, pointer: `/__refs/r${i}`, value: refs[`r${i}`] };
          const resolved = store.resolve(refs[`r${i}`]!.$ref, at);
          expect(resolved.value).toEqual(node.value);
          expect(resolved.pointer).toBe(formatPointer(crossFile ? node.tokens : ['t', ...node.tokens]));
          expect(store.deref(at).loc.value).toEqual(node.value);
        });
        expect(refsLoc.value).toBe(refs);
      }),
      { numRuns: 40 },
    );
  });

  it('follows chains of refs and keeps the nearest siblings', async () => {
    const d = dir();
    writeFileSync(
      path.join(d, 'a.yaml'),
      stringify({
        start: { $ref: '#/middle', summary: 'near' },
        middle: { $ref: 'b.yaml#/end', summary: 'far', description: 'far' },
      }),
    );
    writeFileSync(path.join(d, 'b.yaml'), stringify({ end: { value: 42 } }));
    const store = await DocumentStore.open(path.join(d, 'a.yaml'));
    const start: Loc = {
      doc: store.root,
      pointer: '/start',
      value: (store.root.value as { start: unknown }).start,
    };
    const result = store.deref(start);
    expect(result.loc.value).toEqual({ value: 42 });
    expect(result.loc.doc.display).toBe(path.join(d, 'b.yaml'));
    expect(result.siblings).toEqual({ summary: 'near', description: 'far' });
  });

  it('reports ref loops as ref_cycle at the referring pointer', async () => {
    const d = dir();
    writeFileSync(path.join(d, 'a.yaml'), stringify({ x: { $ref: '#/y' }, y: { $ref: 'b.yaml#/z' } }));
    writeFileSync(path.join(d, 'b.yaml'), stringify({ z: { $ref: 'a.yaml#/x' } }));
    const store = await DocumentStore.open(path.join(d, 'a.yaml'));
    const x: Loc = { doc: store.root, pointer: '/x', value: { $ref: '#/y' } };
    const error = await failure(() => store.deref(x));
    expect(error.code).toBe('ref_cycle');
    expect(error.pointer).toBe('/x/$ref');
    expect(error.file).toBe(path.join(d, 'a.yaml'));
  });

  it('defers failures of referenced files until a ref into them is followed', async () => {
    const d = dir();
    writeFileSync(
      path.join(d, 'a.yaml'),
      stringify({ unused: { $ref: 'gone.yaml#/x' }, broken: { $ref: 'broken.yaml' } }),
    );
    writeFileSync(path.join(d, 'broken.yaml'), 'a: [1\n');
    const store = await DocumentStore.open(path.join(d, 'a.yaml'));
    const root = rootLoc(store);
    const missing = await failure(() => store.resolve('gone.yaml#/x', { ...root, pointer: '/unused' }));
    expect(missing.code).toBe('ref_not_found');
    expect(missing.pointer).toBe('/unused/$ref');
    expect(missing.message).toContain('gone.yaml');
    const broken = await failure(() => store.resolve('broken.yaml', { ...root, pointer: '/broken' }));
    expect(broken.code).toBe('invalid_yaml');
    expect(broken.file).toBe(path.join(d, 'broken.yaml'));
  });

  it('refuses remote refs unless allowed, then fetches them with the injected fetch', async () => {
    const d = dir();
    const file = path.join(d, 'a.yaml');
    writeFileSync(file, stringify({ s: { $ref: 'https://schemas.example/v1/event.json#/Event' } }));
    const refused = await DocumentStore.open(file);
    const error = await failure(() =>
      refused.resolve('https://schemas.example/v1/event.json#/Event', { ...rootLoc(refused), pointer: '/s' }),
    );
    expect(error.code).toBe('remote_ref_refused');
    expect(error.file).toBe(file);
    expect(error.pointer).toBe('/s/$ref');

    const requested: string[] = [];
    const fakeFetch = (async (input: string | URL | Request) => {
      const url = String(input);
      requested.push(url);
      if (url.endsWith('/v1/event.json')) {
        return new Response(JSON.stringify({ Event: { $ref: 'common.yaml#/Id' } }), {
          headers: { 'content-type': 'application/json' },
        });
      }
      if (url.endsWith('/v1/common.yaml')) return new Response('Id:\n  type: string\n');
      return new Response('not found', { status: 404 });
    }) as typeof fetch;
    const store = await DocumentStore.open(file, { allowRemoteRefs: true, fetch: fakeFetch });
    const at: Loc = {
      ...rootLoc(store),
      pointer: '/s',
      value: { $ref: 'https://schemas.example/v1/event.json#/Event' },
    };
    expect(store.deref(at).loc.value).toEqual({ type: 'string' });
    expect(requested.sort()).toEqual([
      'https://schemas.example/v1/common.yaml',
      'https://schemas.example/v1/event.json',
    ]);
  });

  it('turns a remote 404 into ref_not_found and a network failure into network_error', async () => {
    const d = dir();
    const file = path.join(d, 'a.yaml');
    writeFileSync(
      file,
      stringify({ a: { $ref: 'https://x.example/404.json' }, b: { $ref: 'https://down.example/s.json' } }),
    );
    const fakeFetch = (async (input: string | URL | Request) => {
      if (String(input).includes('down')) throw new TypeError('fetch failed');
      return new Response('', { status: 404 });
    }) as typeof fetch;
    const store = await DocumentStore.open(file, { allowRemoteRefs: true, fetch: fakeFetch });
    const notFound = await failure(() =>
      store.resolve('https://x.example/404.json', { ...rootLoc(store), pointer: '/a' }),
    );
    expect(notFound.code).toBe('ref_not_found');
    const down = await failure(() =>
      store.resolve('https://down.example/s.json', { ...rootLoc(store), pointer: '/b' }),
    );
    expect(down.code).toBe('network_error');
  });

  it('rejects fragments that are not JSON pointers and unknown URI schemes', async () => {
    const d = dir();
    const file = path.join(d, 'a.yaml');
    writeFileSync(file, stringify({ a: 1 }));
    const store = await DocumentStore.open(file);
    const anchor = await failure(() => store.resolve('#anchor', rootLoc(store)));
    expect(anchor.code).toBe('ref_not_found');
    expect(anchor.expected).toMatch(/JSON pointer|#\/components/);
    const scheme = await failure(() => store.resolve('urn:example:thing', rootLoc(store)));
    expect(scheme.code).toBe('ref_not_found');
    const missing = await failure(() => store.resolve('#/b/c', rootLoc(store)));
    expect(missing.code).toBe('ref_not_found');
    expect(missing.message).toContain(`${file}#/b/c`);
  });

  it('reports a missing root file as file_not_found', async () => {
    const error = await failure(DocumentStore.open(path.join(tmp, 'nope.yaml')));
    expect(error.code).toBe('file_not_found');
    expect(error.file).toBe(path.join(tmp, 'nope.yaml'));
  });
});
