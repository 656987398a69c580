import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseModuleForm, stripJsonc } from './module-form.js';

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

/** A temp tree of files (path → text); returns its root. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'gw-form-'));
  dirs.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const formFor = (root: string, out = 'src/generated') => chooseModuleForm('auto', path.join(root, out));

describe('chooseModuleForm', () => {
  it('writes js without a tsconfig.json above the output', () => {
    expect(formFor(tree({ 'package.json': '{}' }))).toMatchObject({ form: 'js' });
  });

  it('writes ts for a tsconfig that emits, read as tsc reads it (comments, trailing commas)', () => {
    const root = tree({
      'tsconfig.json': `{
  // "noEmit": true,
  /* "noEmit": true */
  "compilerOptions": { "outDir": "dist", "paths": { "a//b": ["x,}"] }, },
}`,
    });
    expect(formFor(root)).toMatchObject({ form: 'ts', reason: expect.stringMatching(/emits JavaScript/) });
  });

  it('writes js when the project does not emit JavaScript', () => {
    for (const options of ['"noEmit": true', '"emitDeclarationOnly": true, "declaration": true']) {
      expect(formFor(tree({ 'tsconfig.json': `{ "compilerOptions": { ${options} } }` }))).toMatchObject({
        form: 'js',
      });
    }
  });

  it('uses the nearest tsconfig.json, not one further up', () => {
    const root = tree({
      'tsconfig.json': '{ "compilerOptions": { "noEmit": true } }',
      'server/tsconfig.json': '{ "compilerOptions": { "outDir": "dist" } }',
    });
    expect(formFor(root, 'server/src/generated').form).toBe('ts');
    expect(formFor(root, 'web/src/generated').form).toBe('js');
  });

  it('follows extends: relative files, packages, arrays (the last base wins), and overrides', () => {
    const root = tree({
      'base.json': '{ "compilerOptions": { "noEmit": true } }',
      'emit.json': '{ "compilerOptions": { "outDir": "dist" } }',
      'node_modules/@tsconfig/strictest/tsconfig.json': '{ "compilerOptions": { "noEmit": true } }',
      'a/tsconfig.json': '{ "extends": "../base" }',
      'b/tsconfig.json': '{ "extends": "@tsconfig/strictest/tsconfig.json" }',
      'c/tsconfig.json': '{ "extends": ["../base.json", "../emit.json"] }',
      'd/tsconfig.json': '{ "extends": "../base.json", "compilerOptions": { "noEmit": false } }',
      'e/tsconfig.json': '{ "extends": "@tsconfig/strictest" }',
    });
    expect(formFor(root, 'a/gen').form).toBe('js');
    expect(formFor(root, 'b/gen').form).toBe('js');
    expect(formFor(root, 'c/gen').form).toBe('js');
    expect(formFor(root, 'd/gen').form).toBe('ts');
    expect(formFor(root, 'e/gen').form).toBe('js');
  });

  it('asks every reference of a solution-style config', () => {
    const refs = '{ "files": [], "references": [{ "path": "./tsconfig.app.json" }, { "path": "./node" }] }';
    const noEmit = '{ "compilerOptions": { "noEmit": true } }';
    const vite = tree({ 'tsconfig.json': refs, 'tsconfig.app.json': noEmit, 'node/tsconfig.json': noEmit });
    expect(formFor(vite).form).toBe('js');
    const mixed = tree({
      'tsconfig.json': refs,
      'tsconfig.app.json': noEmit,
      'node/tsconfig.json': '{ "compilerOptions": { "outDir": "dist" } }',
    });
    expect(formFor(mixed).form).toBe('ts');
  });

  it('writes ts when the config cannot be read to the end', () => {
    for (const config of ['{ "compilerOptions": ', '{ "extends": "no-such-package/tsconfig.json" }']) {
      expect(formFor(tree({ 'tsconfig.json': config }))).toMatchObject({
        form: 'ts',
        reason: expect.stringMatching(/could not be read/),
      });
    }
    const loop = tree({
      'tsconfig.json': '{ "extends": "./other.json" }',
      'other.json': '{ "extends": "./tsconfig.json" }',
    });
    expect(formFor(loop).form).toBe('ts');
  });

  it('takes an explicit form as it is', () => {
    const root = tree({ 'tsconfig.json': '{ "compilerOptions": { "noEmit": true } }' });
    expect(chooseModuleForm('ts', path.join(root, 'gen')).form).toBe('ts');
    expect(chooseModuleForm('js', path.join(os.tmpdir(), 'gw-none')).form).toBe('js');
  });
});

describe('stripJsonc', () => {
  it('gives back any JSON value, with comments and trailing commas added around it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom('// note\n', '/* note */', ''), (value, comment) => {
        const text = JSON.stringify(value, null, 1)
          .replace(/\n(\s*)([}\]])/g, (_m, space: string, close: string) => `,${comment}\n${space}${close}`)
          .replace(/^/, comment);
        const strip = (t: string) => JSON.parse(stripJsonc(t)) as unknown;
        const expected = JSON.parse(JSON.stringify(value)) as unknown;
        expect(strip(JSON.stringify(value))).toEqual(expected);
        // Empty containers print without a newline, so only non-empty ones got a trailing comma.
        expect(strip(text)).toEqual(expected);
      }),
    );
  });
});
