/**
 * Property names that are also names on `Object.prototype` (`__proto__`, `constructor`,
 * `toString`, …). A JSON payload may carry them as own keys (`JSON.parse` makes `__proto__` an own
 * property), but zod reads `input[key]` and `key in input` through the prototype — an absent
 * optional `constructor` "is" a function and fails — and skips `__proto__` entirely, neither
 * checking nor keeping it. So objects declaring such properties are validated through a small
 * helper emitted into schemas.ts that reads own keys only and defines them on the parsed value;
 * in TypeScript an optional one is typed with what reading it gives when it is absent.
 */

/** Own properties of `Object.prototype` (fixed here, not read at run time: the output must not vary). */
export const INHERITED_KEYS: ReadonlySet<string> = new Set([
  '__proto__',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  'constructor',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  'toString',
  'valueOf',
]);

/** Members of TypeScript's `Object` interface: an object literal without them still "has" them. */
export const TS_OBJECT_MEMBERS: ReadonlySet<string> = new Set([
  'constructor',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  'toString',
  'valueOf',
]);

export type ZodHelper = 'withOwnKeys' | 'keepOwnProto';

/** Names the helpers take in a generated module (reserved there, see emit/names.ts). */
export const ZOD_HELPERS: readonly ZodHelper[] = ['withOwnKeys', 'keepOwnProto'];

const WITH_OWN_KEYS = `/**
 * zod reads keys such as \`constructor\` through the prototype (an absent optional one fails) and
 * never reads or keeps \`__proto__\`: properties with such names are checked here from own keys
 * only, and defined on the parsed value.
 */
function withOwnKeys<T>(
  base: z.ZodType,
  keys: readonly (readonly [key: string, schema: z.ZodType, required: boolean])[],
): z.ZodType<T> {
  return z.unknown().transform((input, ctx) => {
    const record = typeof input === 'object' && input !== null && !Array.isArray(input);
    const fields = input as Record<string, unknown>;
    const rest: Record<string, unknown> = {};
    if (record) {
      for (const key of Object.keys(fields)) {
        if (key !== '__proto__' && !keys.some(([name]) => name === key)) rest[key] = fields[key];
      }
    }
    const parsed = base.safeParse(record ? rest : input);
    let ok = parsed.success;
    for (const issue of parsed.error?.issues ?? []) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: [...issue.path] });
    }
    const own: [string, unknown][] = [];
    for (const [key, schema, required] of record ? keys : []) {
      if (Object.hasOwn(fields, key)) {
        const value = schema.safeParse(fields[key]);
        if (value.success) own.push([key, value.data]);
        else ok = false;
        for (const issue of value.error?.issues ?? []) {
          ctx.addIssue({ code: 'custom', message: issue.message, path: [key, ...issue.path] });
        }
      } else if (required) {
        ok = false;
        ctx.addIssue({ code: 'custom', message: 'Invalid input: expected a value', path: [key] });
      }
    }
    if (!ok) return z.NEVER;
    const out = parsed.data as Record<string, unknown>;
    for (const [key, value] of own) {
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return out as T;
  });
}`;

const KEEP_OWN_PROTO = `/** zod's intersections drop an own \`__proto__\` from the values they merge; this puts it back. */
function keepOwnProto<T>(schema: z.ZodType<T>): z.ZodType<T> {
  return z.unknown().transform((input, ctx) => {
    const parsed = schema.safeParse(input);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        ctx.addIssue({ code: 'custom', message: issue.message, path: [...issue.path] });
      }
      return z.NEVER;
    }
    const out: unknown = parsed.data;
    if (
      typeof input === 'object' &&
      input !== null &&
      Object.hasOwn(input, '__proto__') &&
      typeof out === 'object' &&
      out !== null &&
      !Object.hasOwn(out, '__proto__')
    ) {
      const value: unknown = (input as Record<string, unknown>)['__proto__'];
      Object.defineProperty(out, '__proto__', { value, enumerable: true, writable: true, configurable: true });
    }
    return out as T;
  });
}`;

/** Source text of a helper, for the top of schemas.ts. */
export function zodHelperSource(helper: ZodHelper): string {
  return helper === 'withOwnKeys' ? WITH_OWN_KEYS : KEEP_OWN_PROTO;
}

/**
 * The helper as JavaScript, for schemas.js: its source with the few kinds of type syntax it uses
 * taken out (generic and parameter annotations, `const x: T =`, `as T` casts). A test checks the
 * result compiles to exactly what the TypeScript source compiles to.
 */
export function zodHelperJs(helper: ZodHelper): string {
  return zodHelperSource(helper)
    .replace(/^function (\w+)<T>\(([\s\S]*?)\): [^{]+\{/m, (_m, name: string, params: string) => {
      return `function ${name}(${topLevelParams(params).join(', ')}) {`;
    })
    .replace(/^(\s*const \w+): [^=\n]+ = /gm, '$1 = ')
    .replace(/ as (?:Record<string, unknown>|T\b)/g, '');
}

/** Parameter names of a parameter list whose annotations may hold commas inside brackets. */
function topLevelParams(params: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= params.length; i++) {
    const c = params[i];
    if (c === '(' || c === '[' || c === '<') depth++;
    else if (c === ')' || c === ']' || c === '>') depth--;
    else if ((c === ',' && depth === 0) || i === params.length) {
      const name = /^\s*(\w+)/.exec(params.slice(start, i))?.[1];
      if (name !== undefined) names.push(name);
      start = i + 1;
    }
  }
  return names;
}
