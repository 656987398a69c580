/**
 * The whole-body examples a published spec gives for one event, read straight from the documents
 * (a small reader of its own: `$ref`s inside a file and to relative files, JSON or YAML), so the
 * deliveries the test builds do not pass through the generator's loader.
 * - OpenAPI: the operation's request body media type (`application/json`, else `+json`, else the
 *   first) `example` / `examples[*].value`, else its schema's `example(s)`.
 * - AsyncAPI: the message's `examples[*].payload`, else its payload schema's `examples`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const cache = new Map<string, unknown>();

function load(file: string): unknown {
  const abs = path.resolve(file);
  if (!cache.has(abs)) {
    const text = readFileSync(abs, 'utf8');
    cache.set(abs, abs.endsWith('.json') ? JSON.parse(text) : parse(text));
  }
  return cache.get(abs);
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function at(doc: unknown, pointer: string): unknown {
  let current = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const token = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    current = Array.isArray(current) ? current[Number(token)] : record(current)?.[token];
  }
  return current;
}

interface Node {
  readonly file: string;
  readonly value: unknown;
}

function deref(node: Node): Node {
  let current = node;
  for (let i = 0; i < 32; i++) {
    const ref = record(current.value)?.$ref;
    if (typeof ref !== 'string') return current;
    const [target = '', pointer = ''] = ref.split('#');
    const file = target === '' ? current.file : path.resolve(path.dirname(current.file), target);
    current = { file, value: at(load(file), pointer) };
  }
  return current;
}

function get(node: Node, key: string): Node {
  const resolved = deref(node);
  const v = resolved.value;
  return deref({ file: resolved.file, value: Array.isArray(v) ? v[Number(key)] : record(v)?.[key] });
}

function schemaExamples(schema: Node): unknown[] {
  const s = record(deref(schema).value);
  if (Array.isArray(s?.examples)) return s.examples;
  return s !== undefined && 'example' in s ? [s.example] : [];
}

/** Body examples of the event declared at `source` (`<file>#<pointer>`, as the model writes it). */
export function bodyExamples(source: string): unknown[] {
  const hash = source.indexOf('#');
  const file = path.resolve(source.slice(0, hash));
  const declared = deref({ file, value: at(load(file), source.slice(hash + 1)) });
  const value = record(declared.value);
  if (value === undefined) return [];
  if ('requestBody' in value) {
    const content = get(get(declared, 'requestBody'), 'content');
    const types = Object.keys(record(content.value) ?? {});
    const type =
      types.find((t) => t.split(';')[0]?.trim() === 'application/json') ??
      types.find((t) => /\+json/.test(t)) ??
      types[0];
    if (type === undefined) return [];
    const media = get(content, type);
    const m = record(media.value) ?? {};
    if ('example' in m) return [m.example];
    const examples = record(m.examples);
    if (examples !== undefined) {
      return Object.keys(examples).flatMap((key) => {
        const example = record(get(get(media, 'examples'), key).value);
        return example !== undefined && 'value' in example ? [example.value] : [];
      });
    }
    return schemaExamples(get(media, 'schema'));
  }
  if (Array.isArray(value.examples)) {
    const list = value.examples.flatMap((_, i) => {
      const example = record(get(get(declared, 'examples'), String(i)).value);
      return example !== undefined && 'payload' in example ? [example.payload] : [];
    });
    if (list.length > 0) return list;
  }
  return 'payload' in value ? schemaExamples(get(declared, 'payload')) : [];
}

/** The parsed document at `file` (for vendor fixtures that read a vendor extension). */
export function rawDocument(file: string): unknown {
  return load(file);
}
