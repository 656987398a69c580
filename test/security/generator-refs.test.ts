/**
 * Threat: a contract reads files it has no business reading.
 *
 * Attack: a contract someone else wrote (a vendor's spec, a pull request) says
 * `$ref: ../../secret/creds.json#/password`, `$ref: /etc/passwd`, `$ref: file:///…`, or refers to
 * a symlink inside its folder that points out of it. Generating followed the ref, read the file and
 * printed what it found into types.ts — a file that gets committed and published.
 *
 * What must hold: by default a local `$ref` resolves only below the directory of the contract's
 * root file; anything else is a `ref_outside_root` GeneratorError (exit 2) naming the referring
 * file and the JSON pointer of the `$ref`, nothing is written, and the outside file is not even
 * opened. Reading more is an explicit choice: `refRoot` (config, `generate()`) or `--ref-root <dir>`.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runGenerate } from '../../generator/commands/generate.js';
import { GeneratorError, generate } from '../../generator/index.js';
import type { ToolIo } from '../../generator/tools/output.js';
import { repoRoot } from '../types/typecheck.js';

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'security-refs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'hunter2-do-not-publish';
const POINTER = '/webhooks/leak/post/requestBody/content/application~1json/schema/properties/p/$ref';

type Ref = string | ((root: string) => string);

/** <case>/secret/creds.json, <case>/specs/shared/ok.json, and <case>/specs/contract.json referring to `ref`. */
function layout(ref: Ref, extra: Record<string, unknown> = {}): { root: string; contract: string } {
  const root = mkdtempSync(path.join(dir, 'case-'));
  mkdirSync(path.join(root, 'secret'));
  mkdirSync(path.join(root, 'specs/shared'), { recursive: true });
  writeFileSync(path.join(root, 'secret/creds.json'), JSON.stringify({ password: { const: SECRET } }));
  writeFileSync(path.join(root, 'specs/shared/ok.json'), JSON.stringify({ Ok: { type: 'string' } }));
  const contract = path.join(root, 'specs/contract.json');
  writeFileSync(
    contract,
    JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'Leak', version: '1' },
      webhooks: {
        leak: {
          post: {
            requestBody: {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      p: { $ref: typeof ref === 'string' ? ref : ref(root) },
                      ok: { $ref: 'shared/ok.json#/Ok' },
                    },
                  },
                },
              },
            },
          },
        },
      },
      ...extra,
    }),
  );
  return { root, contract };
}

async function refusal(promise: Promise<unknown>): Promise<GeneratorError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GeneratorError) return error;
    throw error;
  }
  throw new Error('expected a GeneratorError');
}

/** Everything generated below `out`, concatenated ('' when nothing was written). */
function written(out: string): string {
  if (!existsSync(out)) return '';
  return readdirSync(out, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), 'utf8'))
    .join('\n');
}

function io(): ToolIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (chunk: string) => (out += chunk) },
    stderr: { write: (chunk: string) => (err += chunk) },
    env: {},
    out: () => out,
    err: () => err,
  };
}

describe('local $refs stay below the contract directory', () => {
  const outside: [string, Ref][] = [
    ['a relative path climbing out', '../secret/creds.json#/password'],
    ['an absolute path', (root: string) => `${path.join(root, 'secret/creds.json')}#/password`],
    [
      'a file: URL',
      (root: string) => `${pathToFileURL(path.join(root, 'secret/creds.json')).href}#/password`,
    ],
  ];

  for (const [name, ref] of outside) {
    it(`refuses ${name}, naming the file and the pointer, and writes nothing`, async () => {
      const { root, contract } = layout(ref);
      const out = path.join(root, 'out');
      const error = await refusal(generate({ inputs: [contract], out, cwd: root }));
      expect(error.code).toBe('ref_outside_root');
      expect(error.file).toBe(path.relative(process.cwd(), contract));
      expect(error.pointer).toBe(POINTER);
      expect(error.expected).toMatch(/--ref-root/);
      expect(error.message).not.toContain(SECRET);
      expect(written(out)).toBe('');
    });
  }

  it('refuses a symlink inside the folder that points out of it', async () => {
    const { root, contract } = layout('linked/creds.json#/password');
    symlinkSync(path.join(root, 'secret'), path.join(root, 'specs/linked'));
    const out = path.join(root, 'out');
    const error = await refusal(generate({ inputs: [contract], out, cwd: root }));
    expect(error.code).toBe('ref_outside_root');
    expect(error.pointer).toBe(POINTER);
    expect(written(out)).toBe('');
  });

  it('does not open the outside file at all', async () => {
    const { root, contract } = layout('../trap.json#/x');
    // Reading a directory fails with read_failed; a refusal before any read never gets there.
    mkdirSync(path.join(root, 'trap.json'));
    const error = await refusal(generate({ inputs: [contract], out: path.join(root, 'out'), cwd: root }));
    expect(error.code).toBe('ref_outside_root');
  });

  it('still resolves refs into subfolders, and ignores an outside ref nothing follows', async () => {
    const { root, contract } = layout('shared/ok.json#/Ok', {
      components: { schemas: { Unused: { $ref: '../secret/creds.json#/password' } } },
    });
    const out = path.join(root, 'out');
    await generate({ inputs: [contract], out, cwd: root });
    expect(written(out)).toContain('export type Ok = string;');
    expect(written(out)).not.toContain(SECRET);
  });

  it('reads a wider directory only when refRoot says so', async () => {
    const { root, contract } = layout('../secret/creds.json#/password');
    const out = path.join(root, 'out');
    await generate({ inputs: [contract], out, cwd: root, refRoot: '.' });
    expect(written(out)).toContain(SECRET);
    // A refRoot that does not contain the target is no wider than needed.
    const narrow = layout('../secret/creds.json#/password');
    const error = await refusal(
      generate({
        inputs: [narrow.contract],
        out: path.join(narrow.root, 'out'),
        cwd: narrow.root,
        refRoot: 'specs',
      }),
    );
    expect(error.code).toBe('ref_outside_root');
  });

  it('CLI: exit 2 with one line naming file#pointer; --ref-root and the refRoot config field allow it', async () => {
    const { root, contract } = layout('../secret/creds.json#/password');
    const out = path.join(root, 'out');
    const refused = io();
    expect(await runGenerate([contract, '--out', out], refused)).toBe(2);
    expect(refused.err().trim().split('\n')).toHaveLength(1);
    expect(refused.err()).toContain(`${path.relative(process.cwd(), contract)}#${POINTER}: `);
    expect(refused.err()).toMatch(/\[ref_outside_root\]$/m);
    expect(written(out)).toBe('');

    expect(await runGenerate([contract, '--out', out, '--ref-root', root, '--quiet'], io())).toBe(0);
    expect(written(out)).toContain(SECRET);

    const config = path.join(root, 'specs/gen-webhooks.config.json');
    writeFileSync(config, JSON.stringify({ inputs: ['contract.json'], out: '../config-out', refRoot: '..' }));
    expect(await runGenerate(['--config', config, '--quiet'], io())).toBe(0);
    expect(written(path.join(root, 'config-out'))).toContain(SECRET);
  });
});
