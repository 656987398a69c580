/**
 * `--runtime inline`: the runtime files a generated module needs, copied into its folder. The walk
 * starts at the runtime's `inline.ts` plus the exports of the one signature part the contract uses
 * (written together as `runtime/index.ts`; what generated files import) and follows every relative
 * import, type-only ones included (the copy must type-check on its own), so other schemes and
 * presets, the stores, outboxes, adapters and management code a generated module never imports stay out.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { headerLine } from './emit/header.js';
import { presetExport, receiverParts } from './emit/receiver-file.js';
import { GeneratorError } from './errors.js';
import type { ContractModel } from './model.js';

const ENTRY = 'inline.ts';

/**
 * The copy must type-check with only zod installed (no @types/node, no lib.dom): each `node:*` import
 * is pointed at a structurally typed twin in `inline/`, and each file imports the globals it uses
 * from `inline/globals.ts` (the app's own types when it has lib.dom or @types/node).
 */
const NODE_SHIMS: Readonly<Record<string, string>> = {
  'node:crypto': 'inline/node-crypto.ts',
  'node:dns/promises': 'inline/node-dns.ts',
  'node:http': 'inline/node-http.ts',
  'node:https': 'inline/node-https.ts',
  'node:net': 'inline/node-net.ts',
  'node:querystring': 'inline/node-querystring.ts',
};
const GLOBAL_VALUES = [
  'AbortController',
  'Buffer',
  'Headers',
  'Request',
  'Response',
  'TextDecoder',
  'TextEncoder',
  'URL',
  'URLSearchParams',
  'atob',
  'btoa',
  'clearInterval',
  'clearTimeout',
  'console',
  'fetch',
  'performance',
  'setInterval',
  'setTimeout',
  'webCrypto',
] as const;
const GLOBAL_TYPES = ['AbortSignal', 'CryptoKey', 'JsonWebKey', 'SubtleCrypto'] as const;
const GLOBALS_FILE = 'inline/globals.ts';
// Runtime sources are formatted by the project's formatter: every import/export clause starts a line.
const STATIC_IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*'([^']+)'\s*\)/g;

/**
 * Where the runtime sources are: the installed `@gen-webhooks/runtime` package (it ships its `.ts`
 * sources for this), or `runtime/` beside `generator/` in a checkout.
 */
function runtimeSourceDir(): string {
  const candidates: string[] = [];
  try {
    const req = createRequire(import.meta.url);
    candidates.push(path.dirname(req.resolve('@gen-webhooks/runtime/package.json')));
  } catch {
    // Not resolvable as a package (unusual layout): fall back to the checkout's folder.
  }
  const here = path.dirname(fileURLToPath(import.meta.url));
  candidates.push(path.join(here, '..', 'runtime'), path.join(here, '..', '..', 'runtime'));
  for (const candidate of candidates) {
    if (existsSync(path.join(candidate, ENTRY))) return candidate;
  }
  throw new GeneratorError(
    'invalid_argument',
    '--runtime inline needs the runtime sources (@gen-webhooks/runtime ships them)',
    {
      expected: 'an installed @gen-webhooks/runtime that includes its *.ts sources, or --runtime package',
    },
  );
}

/** `to` (a path inside the runtime folder) as a relative `.js` specifier from `from`. */
function specifier(from: string, to: string): string {
  const rel = path.posix.relative(path.posix.dirname(from), to).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** `text` with comments and the insides of string literals blanked, so a scan sees code only. */
function codeOnly(text: string): string {
  let out = '';
  const templates: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
      out += ' ';
    } else if (c === "'" || c === '"' || c === '`' || (c === '}' && templates.at(-1) === 0)) {
      // A string, a template, or the rest of a template after a `${…}`.
      if (c === '}') templates.pop();
      const quote = c === '}' ? '`' : c;
      out += quote;
      for (i++; i < text.length; i++) {
        const d = text[i];
        if (d === '\\') i++;
        else if (d === quote) break;
        else if (quote === '`' && d === '$' && text[i + 1] === '{') {
          templates.push(0);
          i++;
          break;
        }
      }
      out += quote;
    } else {
      if (c === '{' && templates.length > 0) templates.push(1);
      else if (c === '}' && templates.at(-1) === 1) templates.pop();
      out += c;
    }
  }
  return out;
}

/** Whether `code` refers to the global `name` (not a member, key or local declaration of that name). */
function refersTo(code: string, name: string): boolean {
  if (new RegExp(`\\b(?:const|let|var|function|class|interface|type)\\s+${name}\\b`).test(code)) return false;
  // A property or method declared with that name (`fetch(request: Request): Promise<Response>;`).
  const member = new RegExp(
    `^\\s*(?:readonly\\s+${name}\\??\\s*:|(?:async\\s+)?${name}\\??\\s*(?:<[^>]*>)?\\([^)]*\\)\\s*(?::|\\{\\s*$)|${name}\\??\\s*:)`,
  );
  for (const line of code.split('\n')) {
    if (member.test(line)) continue;
    if (new RegExp(`(?<![\\w$.])${name}\\b(?!\\s*\\??:(?!:))`).test(line)) return true;
  }
  return false;
}

/** A runtime source as the inline copy has it: node:* imports and globals resolved through `inline/`. */
function forInline(file: string, text: string): string {
  if (file.startsWith('inline/')) return text;
  let out = text.replace(/from '(node:[^']+)'/g, (_, spec: string) => {
    const shim = NODE_SHIMS[spec];
    if (shim === undefined) {
      throw new GeneratorError(
        'invalid_argument',
        `the runtime's ${file} imports ${spec}, which --runtime inline cannot type`,
        {
          file,
          expected: `one of ${Object.keys(NODE_SHIMS).join(', ')}`,
        },
      );
    }
    return `from '${specifier(file, shim)}'`;
  });
  out = out
    .replaceAll('NodeJS.Timeout', 'ReturnType<typeof setTimeout>')
    .replace(/\bglobalThis\.crypto\b/g, 'webCrypto');
  const code = codeOnly(out);
  const values = GLOBAL_VALUES.filter((name) => refersTo(code, name));
  const types = GLOBAL_TYPES.filter((name) => refersTo(code, name));
  const from = specifier(file, GLOBALS_FILE);
  const lines = [
    ...(types.length > 0 ? [`import type { ${types.join(', ')} } from '${from}';`] : []),
    ...(values.length > 0 ? [`import { ${values.join(', ')} } from '${from}';`] : []),
  ];
  return lines.length > 0 ? `${lines.join('\n')}\n${out}` : out;
}

/** The runtime files `file` imports (relative specifiers only), as paths inside the runtime folder. */
function relativeImports(file: string, text: string): string[] {
  const found: string[] = [];
  for (const pattern of [STATIC_IMPORT, DYNAMIC_IMPORT]) {
    for (const match of text.matchAll(pattern)) {
      const spec = match[1] ?? '';
      if (!spec.startsWith('.')) continue;
      found.push(
        path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts'),
      );
    }
  }
  return found;
}

/**
 * The entry's tail for one contract: the parts its receiver imports (`receiverParts`), each from the
 * file that holds it alone. A preset written against `PresetCrypto` is bound to node:crypto here.
 */
function partsExports(dir: string, model: ContractModel): string {
  const lines: string[] = [];
  const signature = model.signature;
  if (signature.kind === 'preset') {
    const name = signature.preset;
    const local = presetExport(name).replace(/Preset$/, '');
    const file = `presets/${name}.ts`;
    const text = existsSync(path.join(dir, file)) ? readFileSync(path.join(dir, file), 'utf8') : '';
    lines.push("export { presetParts } from './receive/parts-node.js';");
    if (new RegExp(`export const ${local}: ProviderPreset<`).test(text)) {
      lines.push(`export { ${local} as ${presetExport(name)} } from './presets/${name}.js';`);
    } else {
      lines.push(
        "import { bindPreset } from './presets/bind.js';",
        "import { nodePresetCrypto } from './presets/crypto-node.js';",
        `import { ${local}, ${local}Scheme } from './presets/${name}.js';`,
        "import type { ProviderPreset } from './presets/types.js';",
        `export const ${presetExport(name)}: ProviderPreset<'${name}'> = bindPreset(${local}, ${local}Scheme, nodePresetCrypto);`,
      );
    }
  } else {
    const [part] = receiverParts(model).imports;
    lines.push(`export { ${part} } from './receive/parts-node.js';`);
  }
  const imports = receiverParts(model).imports;
  if (imports.includes('contentId')) lines.push("export { contentId } from './receive/parts.js';");
  if (imports.includes('decodeBody')) lines.push("export { decodeBody } from './receive/decode-body.js';");
  if (imports.includes('contractHandshakes')) {
    lines.push("export { contractHandshakes } from './receive/contract-handshakes.js';");
  }
  if (imports.includes('envelopeReader')) {
    lines.push("export { envelopeReader } from './receive/envelope-reader.js';");
  }
  if (imports.includes('headerSelector')) {
    lines.push("export { headerSelector } from './receive/select-header.js';");
  }
  if (imports.includes('schemaSelector')) {
    lines.push("export { schemaSelector } from './receive/select-schema.js';");
  }
  if (imports.includes('ackFastQueue'))
    lines.push("export { ackFastQueue } from './receive/ack-fast-mode.js';");
  return `// This contract's signature parts.\n${lines.join('\n')}\n`;
}

const cache = new Map<string, ReadonlyMap<string, string>>();

/** The runtime files of an inline copy for `model`, keyed by path inside `runtime/`, each with a header. */
export function inlineRuntimeFiles(version: string, model: ContractModel): ReadonlyMap<string, string> {
  const dir = runtimeSourceDir();
  const tail = partsExports(dir, model);
  const key = `${version}\0${tail}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const sources = new Map<string, string>();
  const queue: string[] = [];
  const entryText = forInline(ENTRY, `${readFileSync(path.join(dir, ENTRY), 'utf8')}${tail}`);
  sources.set(ENTRY, entryText);
  queue.push(...relativeImports(ENTRY, entryText));
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (sources.has(file)) continue;
    const full = path.join(dir, file);
    if (!existsSync(full)) {
      throw new GeneratorError('invalid_argument', `the runtime sources lack ${file}`, {
        file: full,
        expected: 'a complete @gen-webhooks/runtime (its *.ts sources)',
      });
    }
    const text = forInline(file, readFileSync(full, 'utf8'));
    sources.set(file, text);
    queue.push(...relativeImports(file, text));
  }
  const files = new Map<string, string>();
  for (const file of [...sources.keys()].sort()) {
    const header = headerLine(version, `@gen-webhooks/runtime/${file}`);
    files.set(file === ENTRY ? 'index.ts' : file, header + (sources.get(file) as string));
  }
  cache.set(key, files);
  return files;
}
