/** One pass over a parsed document: the `$ref`s that name other documents, and how deep it nests. */
import { MAX_DOCUMENT_DEPTH } from './limits.js';
import { appendPointer } from './pointer.js';

/**
 * Calls `visit` with every `$ref` string that names another document (not `#...`), and measures
 * nesting on the way: returns the first object found deeper than MAX_DOCUMENT_DEPTH, if any.
 */
export function scanDocument(root: unknown, visit: (ref: string) => void): object | undefined {
  // Two parallel stacks rather than one of pairs: this walks every node of every document.
  const values: unknown[] = [root];
  const depths: number[] = [1];
  const seen = new Set<object>();
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop() as number;
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    if (depth > MAX_DOCUMENT_DEPTH) return value;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) {
        if (item !== null && typeof item === 'object') {
          values.push(item);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') {
        if (!item.startsWith('#')) visit(item);
      } else if (item !== null && typeof item === 'object') {
        values.push(item);
        depths.push(depth + 1);
      }
    }
  }
  return undefined;
}

/** The pointer of `target` inside `root` (only needed for the too-deep message). */
export function pointerTo(root: unknown, target: object): string {
  const stack: [unknown, string][] = [[root, '']];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [value, pointer] = stack.pop() as [unknown, string];
    if (value === target) return pointer;
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    for (const [key, item] of Object.entries(value)) stack.push([item, appendPointer(pointer, key)]);
  }
  return '';
}
