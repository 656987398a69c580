/**
 * A generated data module (schemas.ts, contract.ts) as JavaScript beside its declarations: the
 * `.js` is the module's code with its types taken out, the `.d.ts` declares each export with the
 * type the `.ts` annotated it with. A consumer's tsc then reads a few declarations instead of
 * parsing and binding the code (GitHub's schemas.ts is 0.5 MB). Only what the emitters write is
 * understood: `import type` statements, value imports, `export const NAME: TYPE = …` at the top
 * level, the TypeScript helpers given with their JavaScript twins, and type arguments of calls to
 * those helpers (`withOwnKeys<{ … }>(…)`).
 */
import { JS_NOCHECK_LINE, NOCHECK_LINE } from './header.js';

export interface JsForm {
  readonly js: string;
  readonly dts: string;
}

/** One top-level export: its doc comment, name and annotated type. */
interface Declared {
  readonly doc: string;
  readonly name: string;
  readonly type: string;
}

const TYPE_IMPORT = /^import type [^;]*;\n/gm;
const VALUE_IMPORT = /^import (?!type )([^;]*) from ('[^']*');\n/gm;
// The annotation ends at the first ` = ` (no emitted type contains one), on this line or a later one.
const EXPORT_CONST = /^((?:\/\*\*(?:[^*]|\*(?!\/))*\*\/\n)?)export const ([A-Za-z_$][\w$]*): ([^=]*?) = /gm;

/**
 * `ts` as JavaScript + declarations. `helpers` maps TypeScript source blocks in `ts` to their
 * JavaScript (zod helpers); each must occur verbatim.
 */
export function toJsForm(ts: string, helpers: ReadonlyMap<string, string> = new Map()): JsForm {
  const text = ts.replace(NOCHECK_LINE, '').replace(JS_NOCHECK_LINE, '');
  const header = text.slice(0, text.indexOf('\n') + 1);
  const declared: Declared[] = [];
  let js = text.replace(EXPORT_CONST, (_m, doc: string, name: string, type: string) => {
    declared.push({ doc, name, type });
    return `${doc}export const ${name} = `;
  });
  for (const [source, plain] of helpers) {
    if (!js.includes(source)) throw new Error('toJsForm: a helper is not in the module as given');
    js = js.replace(source, () => plain);
    const name = /^function (\w+)/m.exec(plain)?.[1];
    if (name !== undefined) js = withoutTypeArguments(js, name);
  }
  const typeImports = text.match(TYPE_IMPORT) ?? [];
  js = js.replace(TYPE_IMPORT, '');
  const types = declared.map((d) => d.type).join('\n');
  // A value import the declarations name (`z` of `z.ZodType<…>`) becomes a type-only import there.
  const valueImports = [...text.matchAll(VALUE_IMPORT)].flatMap(([, clause = '', from]) => {
    const names = clause
      .replace(/^\* as /, '')
      .replace(/[{}]/g, '')
      .split(',');
    const used = names.some((n) => n.trim() !== '' && new RegExp(`\\b${n.trim()}\\b`).test(types));
    return used ? [`import type ${clause} from ${from};\n`] : [];
  });
  const dts = `${header}${typeImports.join('')}${valueImports.join('')}\n${declared
    .map((d) => `${d.doc}export declare const ${d.name}: ${d.type};\n`)
    .join('')}`;
  return { js, dts };
}

/**
 * `name<…>(` → `name(`. The type argument is emitted type text: brackets nest, and string literal
 * types (single-quoted, backslash escapes) may hold any character.
 */
function withoutTypeArguments(js: string, name: string): string {
  const open = `${name}<`;
  let out = '';
  let from = 0;
  for (let at = js.indexOf(open); at !== -1; at = js.indexOf(open, from)) {
    out += js.slice(from, at + name.length);
    let depth = 0;
    let i = at + name.length;
    for (; i < js.length; i++) {
      const c = js[i];
      if (c === "'") {
        for (i++; i < js.length && js[i] !== "'"; i++) if (js[i] === '\\') i++;
      } else if (c === '<' || c === '{' || c === '[' || c === '(') depth++;
      else if (c === '>' || c === '}' || c === ']' || c === ')') {
        depth--;
        if (depth === 0 && c === '>') break;
      }
    }
    from = i + 1;
  }
  return out + js.slice(from);
}
