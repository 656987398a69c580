/**
 * The `format` option: generated files run through the project's formatter before they are compared
 * (`--check`) or written, so a formatted checkout is not reported as changed.
 * - `prettier`: the project's `prettier` package (its config resolved per file);
 * - `biome`: the project's `biome` binary, `biome format --stdin-file-path=<file>` per file (the
 *   project's biome.json applies);
 * - `{ command }`: any command; the files are written to a temporary folder (as
 *   `<contract>/<file>`), `{dir}` in the command is replaced by it (else it is appended), and the
 *   files are read back.
 * A formatter that is missing or fails is a `format_failed` error naming it and why.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { GeneratorError } from './errors.js';
import type { OutputFolder } from './write.js';

export type FormatOption = 'prettier' | 'biome' | { readonly command: string };

function failed(what: string, why: string, expected: string, cause?: unknown): GeneratorError {
  return new GeneratorError('format_failed', `format (${what}): ${why}`, {
    expected,
    ...(cause ? { cause } : {}),
  });
}

async function withPrettier(
  folders: readonly OutputFolder[],
  out: string,
  cwd: string,
): Promise<OutputFolder[]> {
  let prettier: {
    format(text: string, options: Record<string, unknown>): Promise<string>;
    resolveConfig(file: string): Promise<Record<string, unknown> | null>;
  };
  try {
    const entry = createRequire(path.join(cwd, 'package.json')).resolve('prettier');
    prettier = (await import(pathToFileURL(entry).href)) as typeof prettier;
  } catch (cause) {
    throw failed(
      'prettier',
      'the prettier package is not installed in this project',
      'npm install -D prettier',
      cause,
    );
  }
  const result: OutputFolder[] = [];
  for (const folder of folders) {
    const files = new Map<string, string>();
    for (const [rel, text] of folder.files) {
      const filepath = path.join(out, folder.folder, rel);
      try {
        const config = (await prettier.resolveConfig(filepath)) ?? {};
        files.set(rel, await prettier.format(text, { ...config, filepath }));
      } catch (cause) {
        throw failed(
          'prettier',
          `${folder.folder}/${rel}: ${(cause as Error).message}`,
          'a prettier setup that formats TypeScript',
          cause,
        );
      }
    }
    result.push({ folder: folder.folder, files });
  }
  return result;
}

function withBiome(folders: readonly OutputFolder[], out: string, cwd: string): OutputFolder[] {
  const bin = path.join(cwd, 'node_modules', '.bin', process.platform === 'win32' ? 'biome.cmd' : 'biome');
  if (!existsSync(bin)) throw failed('biome', `no ${bin}`, 'npm install -D @biomejs/biome');
  return folders.map((folder) => {
    const files = new Map<string, string>();
    for (const [rel, text] of folder.files) {
      // A path relative to the project (biome's ignore matching panics on absolute paths outside it).
      const target = path.relative(cwd, path.join(out, folder.folder, rel));
      const virtual =
        target.startsWith('..') || path.isAbsolute(target) ? path.join(folder.folder, rel) : target;
      const run = spawnSync(bin, ['format', `--stdin-file-path=${virtual}`], {
        cwd,
        input: text,
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      });
      if (run.status !== 0 || run.stdout === '') {
        throw failed(
          'biome',
          `${folder.folder}/${rel}: ${(run.stderr || run.error?.message || 'no output').trim().slice(0, 500)}`,
          'biome format to succeed on the generated file',
        );
      }
      files.set(rel, run.stdout);
    }
    return { folder: folder.folder, files };
  });
}

function withCommand(folders: readonly OutputFolder[], command: string, cwd: string): OutputFolder[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-format-'));
  try {
    for (const folder of folders) {
      for (const [rel, text] of folder.files) {
        const file = path.join(dir, folder.folder, rel);
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, text);
      }
    }
    const line = command.includes('{dir}')
      ? command.replaceAll('{dir}', JSON.stringify(dir))
      : `${command} ${JSON.stringify(dir)}`;
    const run = spawnSync(line, { cwd, shell: true, encoding: 'utf8', timeout: 300_000 });
    if (run.status !== 0) {
      throw failed(
        command,
        `exited ${run.status ?? run.signal}: ${(run.stderr || run.stdout || '').trim().slice(0, 500)}`,
        'a command that formats the files in the folder it is given',
      );
    }
    return folders.map((folder) => {
      const files = new Map<string, string>();
      for (const rel of folder.files.keys())
        files.set(rel, readFileSync(path.join(dir, folder.folder, rel), 'utf8'));
      return { folder: folder.folder, files };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function formatFolders(
  folders: readonly OutputFolder[],
  format: FormatOption,
  options: { readonly out: string; readonly cwd: string },
): Promise<OutputFolder[]> {
  if (format === 'prettier') return withPrettier(folders, options.out, options.cwd);
  if (format === 'biome') return withBiome(folders, options.out, options.cwd);
  if (typeof format === 'object' && typeof format.command === 'string' && format.command.trim() !== '') {
    return withCommand(folders, format.command, options.cwd);
  }
  throw new GeneratorError('invalid_config', `format ${JSON.stringify(format)} is not a formatter`, {
    expected: "'prettier', 'biome' or { command: '<formatter> {dir}' }",
  });
}

/** `--format` text: `prettier`, `biome`, or any other text as a command. */
export function parseFormat(text: string): FormatOption {
  return text === 'prettier' || text === 'biome' ? text : { command: text };
}
