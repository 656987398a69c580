/**
 * JSON Pointer (RFC 6901) helpers. Pointers are kept as strings in their plain form (`/a~1b/0`);
 * `$ref` fragments arrive URI-encoded and are percent-decoded first (RFC 6901 §6).
 */

/** Escapes one reference token: `~` → `~0`, `/` → `~1`. */
export function escapeToken(token: string): string {
  // Fast path: most keys need no escaping and this runs for every node of every schema.
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Unescapes one reference token; `~1` before `~0` so `~01` stays `~1`. */
export function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Builds a pointer from tokens: `['a/b', 0]` → `/a~1b/0`. */
export function formatPointer(tokens: readonly (string | number)[]): string {
  let out = '';
  for (const token of tokens) out += `/${escapeToken(String(token))}`;
  return out;
}

/** Appends one token to a pointer. */
export function appendPointer(pointer: string, token: string | number): string {
  return `${pointer}/${escapeToken(String(token))}`;
}

/** Splits a pointer into unescaped tokens; `undefined` when it is not a pointer (no leading `/`). */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer.slice(1).split('/').map(unescapeToken);
}

/**
 * Turns a URI fragment (`/components/schemas/My%20Pet`) into a plain pointer; `undefined` when the
 * percent-encoding is malformed.
 */
export function fragmentToPointer(fragment: string): string | undefined {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
}

/** Encodes a plain pointer as a URI fragment (inverse of fragmentToPointer). */
export function pointerToFragment(pointer: string): string {
  return pointer
    .split('/')
    .map((part) => encodeURIComponent(part).replace(/%7E/gi, '~'))
    .join('/');
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Result of walking tokens into a value: the value, or the index of the first missing token. */
export type PointerLookup = { found: true; value: unknown } | { found: false; missingAt: number };

/** Walks `tokens` into `root`; arrays take decimal indexes without leading zeros. */
export function lookup(root: unknown, tokens: readonly string[]): PointerLookup {
  let current: unknown = root;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return { found: false, missingAt: i };
      const index = Number(token);
      if (index >= current.length) return { found: false, missingAt: i };
      current = current[index];
    } else if (current !== null && typeof current === 'object') {
      if (!hasOwn.call(current, token)) return { found: false, missingAt: i };
      current = (current as Record<string, unknown>)[token];
    } else {
      return { found: false, missingAt: i };
    }
  }
  return { found: true, value: current };
}
