/**
 * Threat: code planted in a contract runs when the generated module is imported.
 *
 * Attack: contract text reaches generated source — the input's file name in every header comment,
 * `info.title` and descriptions in JSDoc, event names, enum values, property names, examples and
 * defaults in code. A file name holding a line break (or U+2028/U+2029) followed by a statement put
 * that statement on a line of its own in every file; a backtick elsewhere kept the rest parseable,
 * and `// @ts-nocheck` hid the type errors. `import './contract.js'` then ran it.
 *
 * What must hold, for any text in any of those places: every generated file parses as TypeScript,
 * importing the module runs nothing of the contract's (no global set, no file written), and the
 * event names come out as written (`__proto__` included).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StandardSchemaV1 } from '@gen-webhooks/runtime';
import fc from 'fast-check';
import ts from 'typescript';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { GeneratorError, generate } from '../../generator/index.js';
import { escapeToken } from '../../generator/load/pointer.js';
import { repoRoot } from '../types/typecheck.js';

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'security-injection-'));
const marker = path.join(dir, 'PWNED');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pwned = globalThis as { __pwned?: unknown };
beforeEach(() => {
  delete pwned.__pwned;
  process.env.GW_PWNED_MARKER = marker;
});

/** What the attacker wants to run: set a global and write a file (no `/`, so it fits a file name). */
const STATEMENT =
  "globalThis.__pwned = 1; process.getBuiltinModule('fs').writeFileSync(process.env.GW_PWNED_MARKER, '1');";
const PAYLOADS = [
  `\n${STATEMENT}\``,
  `\r${STATEMENT}//`,
  `\u2028${STATEMENT}\``,
  `\u2029${STATEMENT}`,
  `*/ ${STATEMENT} /*`,
  `'; ${STATEMENT} '`,
  `\`; ${STATEMENT} \``,
  `\${${STATEMENT}}`,
];

const fragment = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PAYLOADS) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '\n',
      '\r\n',
      '\r',
      '\u2028',
      '\u2029',
      '\u0085',
      '\u0000',
      '\t',
      '`',
      '*/',
      '/*',
      '//',
      '${',
      "'",
      '"',
      '\\',
      '\\u2028',
      '__proto__',
      'constructor',
      '<!--',
      '-->',
      '#!',
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
);
const hostile = fc.array(fragment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join(''));
const names = (min: number, max: number) =>
  fc.uniqueArray(fc.oneof(hostile, fc.constantFrom('__proto__', 'constructor', 'toString')), {
    minLength: min,
    maxLength: max,
  });

interface Hostile {
  readonly fileName: string;
  readonly title: string;
  readonly description: string;
  readonly events: readonly string[];
  readonly component: string;
  readonly properties: readonly string[];
  readonly enumValues: readonly string[];
}

const hostileContract: fc.Arbitrary<Hostile> = fc.record({
  fileName: hostile,
  title: hostile,
  description: hostile,
  events: names(1, 3),
  component: hostile,
  properties: names(1, 3),
  enumValues: names(1, 3),
});

/** Lone surrogates become U+FFFD, as they would on the way to the file system. */
function wellFormed(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** A file name the file system takes: no `/` or NUL, at most ~200 bytes. */
function fileNameOf(text: string): string {
  let name = `c${text.replace(/[/\u0000]/g, '_')}`;
  while (Buffer.byteLength(name) > 200) name = name.slice(0, -1);
  return `${wellFormed(name)}.json`;
}

function contractDocument(h: Hostile): unknown {
  const component = wellFormed(h.component);
  const ref = `#/components/schemas/${encodeURIComponent(escapeToken(component))}`;
  const example = Object.fromEntries(h.properties.map((p) => [p, h.enumValues[0]]));
  const properties = Object.fromEntries(
    h.properties.map((p) => [
      p,
      {
        type: 'string',
        enum: h.enumValues,
        title: h.title,
        description: h.description,
        default: h.description,
        format: h.title,
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: { title: h.title, version: h.description, description: h.description },
    webhooks: Object.fromEntries(
      h.events.map((event) => [
        event,
        {
          post: {
            summary: h.title,
            description: h.description,
            requestBody: { content: { 'application/json': { schema: { $ref: ref } } } },
          },
        },
      ]),
    ),
    components: {
      schemas: {
        [component]: {
          title: h.title,
          description: h.description,
          type: 'object',
          required: h.properties,
          properties,
          examples: [example],
        },
      },
    },
  };
}

/** JSON.stringify keeps `__proto__` keys that `Object.fromEntries` created as own properties. */
function writeContract(folder: string, h: Hostile): string {
  const file = path.join(folder, fileNameOf(h.fileName));
  writeFileSync(file, JSON.stringify(contractDocument(h), null, 2));
  return file;
}

function syntaxErrors(file: string): string[] {
  const out = ts.transpileModule(readFileSync(file, 'utf8'), {
    // A declaration file has no output of its own: parsed as the .ts it declares, it is checked alike.
    fileName: file.replace(/\.d\.ts$/, '.ts'),
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  return (out.diagnostics ?? []).map(
    (d) => `${path.basename(file)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
  );
}

let run = 0;

const FILES = ['fixtures.ts', 'index.ts', 'receiver.ts', 'sender.ts', 'types.ts'];
/** Both forms of the data modules (module-form.ts): TypeScript, checked, and JavaScript + declarations. */
const FORMS = [
  { options: { checkAll: true }, data: ['contract.ts', 'schemas.ts', 'validators.ts'] },
  {
    options: { dataModules: 'js' as const },
    data: ['contract.d.ts', 'contract.js', 'schemas.d.ts', 'schemas.js', 'validators.d.ts', 'validators.js'],
  },
];

/**
 * Generates `h` in both forms and checks the three properties; the JavaScript form's folder, or
 * undefined when refused.
 */
async function generateAndImport(h: Hostile): Promise<string | undefined> {
  const folder = path.join(dir, `run-${run++}`);
  mkdirSync(folder);
  const file = writeContract(folder, h);
  let out: string | undefined;
  for (const [i, form] of FORMS.entries()) {
    let result: Awaited<ReturnType<typeof generate>>;
    try {
      result = await generate({
        inputs: [file],
        out: path.join(folder, `out-${i}`),
        cwd: folder,
        ...form.options,
      });
    } catch (error) {
      // A typed refusal is an acceptable answer to hostile input; anything else is a bug.
      if (error instanceof GeneratorError) return undefined;
      throw error;
    }
    const [contract] = result.contracts;
    if (!contract) throw new Error('no contract generated');
    out = path.join(folder, `out-${i}`, contract.name);
    await checkModule(out, [...contract.events].sort(), [...FILES, ...form.data].sort());
  }
  return out;
}

async function checkModule(out: string, events: string[], expected: string[]): Promise<void> {
  const files = readdirSync(out).filter((f) => f.endsWith('.ts') || f.endsWith('.js'));
  expect(files.sort()).toEqual(expected);
  for (const f of files) {
    const text = readFileSync(path.join(out, f), 'utf8');
    // One header line, however the file name was spelled.
    expect(text.split('\n')[0]).toMatch(/^\/\/ Generated by gen-webhooks \S+ from .*\. Do not edit\.$/);
    expect(syntaxErrors(path.join(out, f))).toEqual([]);
  }
  const mod = (await import(pathToFileURL(path.join(out, 'index.ts')).href)) as {
    contract: { events: Record<string, unknown> };
    eventSchemas: Record<string, unknown>;
  };
  const fixtures = (await import(pathToFileURL(path.join(out, 'fixtures.ts')).href)) as {
    fixtures: Record<string, unknown>;
  };
  expect(pwned.__pwned).toBeUndefined();
  expect(existsSync(marker)).toBe(false);
  // Event names are keys as written: an object-literal `'__proto__': …` would have set a prototype.
  expect(Object.keys(mod.contract.events).sort()).toEqual(events);
  expect(Object.keys(mod.eventSchemas).sort()).toEqual(events);
  expect(Object.keys(fixtures.fixtures).sort()).toEqual(events);
  const validators = expected.includes('validators.ts') ? 'validators.ts' : 'validators.js';
  const { eventValidators } = (await import(pathToFileURL(path.join(out, validators)).href)) as {
    eventValidators: Record<string, StandardSchemaV1>;
  };
  expect(Object.keys(eventValidators).sort()).toEqual(events);
  // And the validators still mean what the contract says: each fixture (its valid example) passes.
  for (const schemas of [mod.eventSchemas as Record<string, StandardSchemaV1>, eventValidators]) {
    for (const event of events) {
      const verdict = await schemas[event]?.['~standard'].validate(fixtures.fixtures[event]);
      expect(verdict?.issues, event).toBeUndefined();
    }
  }
}

describe('contract text cannot become code in the generated module', () => {
  it('a file name with a line break and a statement stays inside the header comment', async () => {
    const h: Hostile = {
      fileName: `evil\n${STATEMENT}//`,
      title: 'Title with a ` backtick',
      description: 'plain',
      events: ['pet.adopted'],
      component: 'Pet',
      properties: ['name`'],
      enumValues: ['a'],
    };
    const out = await generateAndImport(h);
    if (out === undefined) throw new Error('the contract was refused');
    const header = readFileSync(path.join(out, 'contract.js'), 'utf8').split('\n')[0];
    expect(header).toContain(' from cevil\\nglobalThis.__pwned = 1;');
  });

  it('holds for arbitrary file names, titles, descriptions, event names, enum values and property names', async () => {
    let generated = 0;
    await fc.assert(
      fc.asyncProperty(hostileContract, async (h) => {
        if ((await generateAndImport(h)) !== undefined) generated++;
      }),
      { numRuns: 30 },
    );
    // The property is about generated modules: most hostile contracts must actually generate.
    expect(generated).toBeGreaterThan(20);
  });
});
