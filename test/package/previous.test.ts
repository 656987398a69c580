/**
 * `--package --previous`: the version bump and CHANGELOG entry come from the contract diff (breaking
 * for receivers → major, additive → minor, documentation only → patch), and running the same
 * generation again changes nothing (the entry carries its base version and both contracts' digests).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffContracts } from '../../generator/diff/index.js';
import {
  bumpVersion,
  classifyBump,
  firstEntryMarker,
  withEntry,
} from '../../generator/emit/package/changelog.js';
import { GeneratorError } from '../../generator/errors.js';
import { type GenerateOptions, generate } from '../../generator/generate.js';
import { loadContract } from '../../generator/parse/index.js';
import { repoRoot } from '../types/typecheck.js';
import { linkDependencies, runtimePackage } from './helpers.js';

const fixtures = path.join(repoRoot, 'test/evolution/fixtures');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'gw-previous-'));
const packages = path.join(tmp, 'packages');
const pkgDir = path.join(packages, 'pets');

afterAll(() => rmSync(tmp, { recursive: true, force: true }));
beforeAll(() => linkDependencies(tmp, runtimePackage()), 300_000);

/** The fixture as `<tmp>/<version>/pets.yaml`: every version has the same contract (file) name. */
function version(fixture: string): string {
  const dir = path.join(tmp, 'contracts', fixture);
  mkdirSync(dir, { recursive: true });
  copyFileSync(path.join(fixtures, `${fixture}.yaml`), path.join(dir, 'pets.yaml'));
  return path.join(dir, 'pets.yaml');
}

async function run(current: string, previous?: string, extra: Partial<GenerateOptions> = {}) {
  return generate({
    inputs: [version(current)],
    cwd: tmp,
    package: packages,
    packageInfo: { version: '1.0.0' },
    ...(previous === undefined ? {} : { previous: version(previous) }),
    ...extra,
  });
}

const packageVersion = () => JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
const changelog = () => readFileSync(path.join(pkgDir, 'CHANGELOG.md'), 'utf8');

describe('classifyBump', () => {
  const bump = async (next: string) =>
    classifyBump(
      diffContracts(
        await loadContract(path.join(fixtures, 'base.yaml')),
        await loadContract(path.join(fixtures, `${next}.yaml`)),
      ),
    );

  it('major when receivers break, minor when only additive or sender-breaking, patch for docs, none for nothing', async () => {
    expect(await bump('field-removed')).toBe('major');
    expect(await bump('enum-value-added')).toBe('major');
    expect(await bump('optional-field-added')).toBe('minor');
    expect(await bump('event-added')).toBe('minor');
    // Breaks senders only: an SDK's readers are receivers, so it is not a major release for them.
    expect(await bump('required-field-added')).toBe('minor');
    expect(await bump('docs-only')).toBe('patch');
    expect(await bump('base')).toBe('none');
  });

  it('bumpVersion', () => {
    expect(bumpVersion('1.2.3', 'major')).toBe('2.0.0');
    expect(bumpVersion('1.2.3', 'minor')).toBe('1.3.0');
    expect(bumpVersion('1.2.3', 'patch')).toBe('1.2.4');
    expect(bumpVersion('1.3.0-rc.1', 'patch')).toBe('1.3.0');
    // A prerelease is released by the bump it precedes: 1.3.0-rc.1 already carries the minor change.
    expect(bumpVersion('1.3.0-rc.1', 'minor')).toBe('1.3.0');
    expect(bumpVersion('2.0.0-rc.1', 'major')).toBe('2.0.0');
    expect(bumpVersion('1.2.3-rc.1', 'minor')).toBe('1.3.0');
    expect(bumpVersion('1.2.3+build.5', 'patch')).toBe('1.2.4');
    expect(bumpVersion('1.2.3', 'none')).toBe('1.2.3');
  });

  it('withEntry keeps a hand-written introduction and replaces only the first entry', () => {
    const existing = '# Changelog\n\nWhat changed.\n\n## 1.1.0\n\nnew\n\n## 1.0.0\n\nold\n';
    expect(withEntry(existing, '## 1.1.0\n\nnewer', true)).toBe(
      '# Changelog\n\nWhat changed.\n\n## 1.1.0\n\nnewer\n\n## 1.0.0\n\nold\n',
    );
    expect(withEntry(existing, '## 1.2.0\n\nx', false)).toMatch(
      /What changed\.\n\n## 1\.2\.0\n\nx\n\n## 1\.1\.0/,
    );
    expect(withEntry(undefined, undefined, false)).toBeUndefined();
  });
});

describe('generate --package --previous', () => {
  it('writes no CHANGELOG without --previous, and the configured version', async () => {
    await run('base');
    expect(packageVersion()).toBe('1.0.0');
    expect(() => changelog()).toThrow();
  }, 120_000);

  it('an additive change is a minor release with a CHANGELOG entry; running it again changes nothing', async () => {
    const result = await run('optional-field-added', 'base');
    expect(result.contracts[0]?.package).toEqual({ name: 'pets-webhooks', version: '1.1.0', bump: 'minor' });
    expect(packageVersion()).toBe('1.1.0');
    const text = changelog();
    expect(text).toMatch(
      /^# Changelog\n\n## 1\.1\.0\n\n<!-- gen-webhooks: base=1\.0\.0 from=[0-9a-f]{16} to=[0-9a-f]{16} -->\n\nMinor release: Pet events 1\.0\.0 → Pet events 1\.0\.0\.\n\n### Changes\n\n- `pet\.adopted` `\/properties\/pet\/properties\/color`: optional field "color" added\n$/,
    );
    expect(firstEntryMarker(text)?.base).toBe('1.0.0');
    const again = await run('optional-field-added', 'base', { check: true });
    expect(again.changed).toEqual([]);
    await run('optional-field-added', 'base');
    expect(packageVersion()).toBe('1.1.0');
    expect(changelog()).toBe(text);
  }, 120_000);

  it('the unreleased entry is redone when the new contract changes again against the same previous one', async () => {
    // Still against base (1.1.0 not released): now a field is removed too → that entry becomes major.
    await run('field-removed', 'base');
    expect(packageVersion()).toBe('2.0.0');
    const text = changelog();
    expect(text.match(/^## /gm)).toHaveLength(1);
    expect(text).toMatch(
      /## 2\.0\.0[\s\S]*### Breaking for receivers\n\n- `pet\.adopted` `\/properties\/pet\/properties\/name`: /,
    );
  }, 120_000);

  it('a new previous contract (the released one) starts a new entry from the package version', async () => {
    await run('docs-only', 'field-removed');
    // field-removed → docs-only puts `name` back (receivers: additive) and only edits docs otherwise.
    expect(packageVersion()).toBe('2.1.0');
    expect(changelog().match(/^## \d/gm)).toEqual(['## 2', '## 2']);
    expect(changelog()).toMatch(/^# Changelog\n\n## 2\.1\.0\n\n<!-- gen-webhooks: base=2\.0\.0 /);
    expect(changelog()).toMatch(
      /### Documentation\n\n- contract `\/version`: version changed\n- `pet\.adopted`: summary changed\n/,
    );
  }, 120_000);

  it('documentation only is a patch release', async () => {
    rmSync(pkgDir, { recursive: true, force: true });
    const result = await run('docs-only', 'base');
    expect(result.contracts[0]?.package?.bump).toBe('patch');
    expect(packageVersion()).toBe('1.0.1');
  }, 120_000);

  it('keeps an edited version in package.json as the base of the next bump, and fields it does not write', async () => {
    rmSync(pkgDir, { recursive: true, force: true });
    await run('base');
    const file = path.join(pkgDir, 'package.json');
    const edited = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(
      file,
      JSON.stringify({ ...edited, version: '3.4.5', keywords: ['pets'], description: 'mine' }),
    );
    await generate({
      inputs: [version('event-added')],
      cwd: tmp,
      package: packages,
      previous: version('base'),
    });
    expect(packageVersion()).toBe('3.5.0');
    // Fields gen-webhooks does not write stay; the ones it writes come from the contract and config.
    const pkg = JSON.parse(readFileSync(file, 'utf8'));
    expect(pkg.keywords).toEqual(['pets']);
    expect(pkg.description).toMatch(/^Typed webhooks for Pet events/);
  }, 120_000);

  it('refuses --previous without --package, and one package name for several contracts', async () => {
    await expect(
      generate({
        inputs: [version('base')],
        cwd: tmp,
        out: path.join(tmp, 'gen'),
        previous: version('base'),
      }),
    ).rejects.toThrow(GeneratorError);
    await expect(
      generate({
        inputs: [version('base'), path.join(repoRoot, 'schemas/petstore.openapi.yaml')],
        cwd: tmp,
        package: packages,
        packageInfo: { name: 'one-name' },
      }),
    ).rejects.toThrow(/one package name/);
  }, 120_000);
});
