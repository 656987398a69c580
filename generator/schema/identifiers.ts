/**
 * Identifiers and property keys for generated code. Names come from contracts (`pet.adopted`,
 * `branch-protection-configuration-disabled`, `+1`, `a/b`), so everything here must turn arbitrary
 * strings into valid, collision-free, deterministic TypeScript. Identifiers are ASCII-only on purpose:
 * non-ASCII letters are legal in JS but tool support (TS scanner tables, editors, minifiers) varies.
 */

/** ES/TS reserved and strict-mode words, plus names generated code relies on (`z`, globals). */
const RESERVED = new Set<string>([
  // ECMAScript reserved words and strict-mode restrictions
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'import',
  'in',
  'instanceof',
  'new',
  'null',
  'return',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  'yield',
  'let',
  'static',
  'implements',
  'interface',
  'package',
  'private',
  'protected',
  'public',
  'await',
  'arguments',
  'eval',
  'undefined',
  'NaN',
  'Infinity',
  // TypeScript type keywords (invalid as type names)
  'any',
  'unknown',
  'never',
  'object',
  'string',
  'number',
  'boolean',
  'bigint',
  'symbol',
  'type',
  'as',
  'is',
  'keyof',
  'infer',
  'declare',
  'namespace',
  'module',
  'readonly',
  'satisfies',
  'asserts',
  'abstract',
  'accessor',
  'constructor',
  'global',
  'require',
  'exports',
  // Names generated modules import or use: shadowing them would break the module.
  'z',
  'Array',
  'ArrayBuffer',
  'BigInt',
  'Boolean',
  'Contract',
  'Date',
  'Error',
  'Function',
  'JSON',
  'Map',
  'Math',
  'Number',
  'Object',
  'Omit',
  'Partial',
  'Pick',
  'Promise',
  'Readonly',
  'Record',
  'RegExp',
  'Request',
  'Required',
  'Response',
  'Set',
  'String',
  'Symbol',
  'Uint8Array',
  'URL',
  'WeakMap',
]);

const ASCII_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** True when `text` is a valid ASCII identifier that generated code may declare. */
export function isSafeIdentifier(text: string): boolean {
  return ASCII_IDENTIFIER.test(text) && !RESERVED.has(text);
}

/**
 * Splits a name into words: separators are anything but ASCII letters/digits; camelCase and
 * acronym boundaries split too (`HTTPServer` → `HTTP`, `Server`). A `+` becomes the word `Plus`
 * and a leading `-` before a digit `Minus`, so GitHub's `+1`/`-1` reactions stay distinguishable.
 */
function words(name: string): string[] {
  const marked = name.replace(/\+/g, ' Plus ').replace(/^-(?=[0-9])/, 'Minus ');
  const out: string[] = [];
  for (const chunk of marked.split(/[^A-Za-z0-9]+/)) {
    if (chunk === '') continue;
    const parts = chunk.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g);
    if (parts) out.push(...parts);
  }
  return out;
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Converts a name to a PascalCase or camelCase ASCII identifier stem (may still be reserved). */
function toStem(name: string, style: 'pascal' | 'camel'): string {
  const list = words(name);
  if (list.length === 0) return style === 'pascal' ? 'Schema' : 'value';
  let stem =
    style === 'pascal'
      ? list.map(capitalize).join('')
      : list.map((word, i) => (i === 0 ? word.toLowerCase() : capitalize(word))).join('');
  if (/^[0-9]/.test(stem)) stem = `_${stem}`;
  return stem;
}

export interface IdentifierAllocator {
  /**
   * Returns a new identifier for `name` in the given style with `suffix` appended (`pet`, `pascal`,
   * `Schema` → `PetSchema`). Every call reserves a fresh identifier: a second request that maps to the
   * same text gets a numeric suffix (`Pet2`), in call order, so the result is deterministic.
   */
  allocate(name: string, style: 'pascal' | 'camel', suffix?: string): string;
}

export function createIdentifierAllocator(): IdentifierAllocator {
  const taken = new Set<string>();
  return {
    allocate(name, style, suffix = '') {
      const safeSuffix = suffix.replace(/[^A-Za-z0-9_$]/g, '');
      let base = toStem(name, style) + safeSuffix;
      if (RESERVED.has(base)) base = `${base}_`;
      let candidate = base;
      for (let n = 2; taken.has(candidate) || RESERVED.has(candidate); n++) candidate = `${base}${n}`;
      taken.add(candidate);
      return candidate;
    },
  };
}

// Quoting lives with the rest of the contract-text escaping; re-exported for existing callers.
export { propertyKey, stringLiteral } from './escape.js';
