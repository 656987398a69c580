/**
 * What `npm pack` would publish, for both packages (scripts not run): license, readme and manifest,
 * no tests, source maps or configs; the runtime's `.ts` sources are exactly the files a
 * `--runtime inline` copy of some contract takes (walked from runtime/inline.ts and the contract's
 * signature parts), so a source no inline copy imports
 * does not ship and one it needs cannot be left out.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inlineRuntimeFiles } from '../../generator/inline-runtime.js';
import type { ContractModel } from '../../generator/model.js';
import { providers } from '../../runtime/presets/registry.js';
import { repoRoot } from '../types/typecheck.js';

/** Every file some inline copy takes: one copy per signature kind and preset, with and without bodies. */
function inlineSources(): string[] {
  const signatures = [
    { kind: 'standard-webhooks' },
    { kind: 'hmac' },
    { kind: 'none' },
    ...Object.keys(providers).map((preset) => ({ kind: 'preset', preset })),
  ];
  const files = new Set<string>();
  for (const signature of signatures) {
    for (const bodies of [undefined, { form: true }]) {
      // Every part an emitted receiver may import: the body decoder, declared handshakes, the envelope,
      // the header selector and the choice by schema.
      for (const extra of [
        { envelope: { kind: 'bare' }, selector: { kind: 'header', header: 'X-Event' }, events: [] },
        {
          envelope: { kind: 'envelope' },
          selector: { kind: 'schema' },
          events: [],
          handshakes: [{ kind: 'cloudevents', allowedOrigins: '*' }],
        },
      ]) {
        const model = {
          signature,
          ...extra,
          ...(bodies === undefined ? {} : { bodies }),
        } as unknown as ContractModel;
        for (const file of inlineRuntimeFiles('test', model).keys())
          files.add(file === 'index.ts' ? 'inline.ts' : file);
      }
    }
  }
  return [...files].sort();
}

function packed(dir: string): string[] {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [manifest] = JSON.parse(out) as [{ files: { path: string }[] }];
  return manifest.files.map((f) => f.path).sort();
}

const junk = (files: string[]) =>
  files.filter((f) => /\.test(-d)?\.ts$|\.map$|tsconfig|\.tsbuildinfo$|(^|\/)test\/|\.bench\.ts$/.test(f));

describe('@gen-webhooks/runtime tarball', () => {
  const files = packed(path.join(repoRoot, 'runtime'));

  it('has its license, readme and manifest, and nothing a user does not need', () => {
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
    expect(junk(files)).toEqual([]);
  });

  it('ships exactly the sources an inline copy takes (add a `!file` to runtime/package.json files for others)', () => {
    const sources = files.filter((f) => f.endsWith('.ts') && !f.startsWith('dist/'));
    expect(sources).toEqual(inlineSources());
  });
});

describe('gen-webhooks tarball', () => {
  const files = packed(repoRoot);

  it('has its license, readme, manifest, bin and guides, and nothing a user does not need', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'bin/gen-webhooks.js',
        'docs/receiver.md',
      ]),
    );
    expect(junk(files)).toEqual([]);
    // Neither package's sources: the CLI runs from dist/, the runtime is its own package.
    expect(files.filter((f) => /^(generator|runtime|scripts|bench|examples|schemas)\//.test(f))).toEqual([]);
  });
});
