/**
 * `--package`: one contract's generated module as a complete npm package folder — package.json,
 * src/ (the module, plus `runtime.ts` re-exporting the runtime), a built dist/, README.md, LICENSE,
 * test/smoke.test.mjs and, with `--previous`, the version bump and a CHANGELOG entry. In memory:
 * the caller writes the result (write.ts) only once every contract's package is built.
 */
import { createRequire } from 'node:module';
import type { RuntimeMode } from '../../config.js';
import { diffContracts } from '../../diff/index.js';
import type { Diagnostic } from '../../errors.js';
import type { ContractModel } from '../../model.js';
import { pickFixture } from '../fixtures-file.js';
import { buildDist } from './build.js';
import {
  type Bump,
  bumpVersion,
  changelogEntry,
  classifyBump,
  contractDigest,
  firstEntryMarker,
  withEntry,
} from './changelog.js';
import { isSemver, type PackageInfo } from './info.js';
import { licenseText } from './license.js';
import { defaultDescription, emitPackageJson, type ResolvedPackage } from './package-json.js';
import { emitReadme } from './readme.js';
import { emitSmokeTest } from './smoke-test.js';

export { type PackageInfo, validatePackageInfo } from './info.js';
export { diffPackage, writePackage } from './write.js';

export interface PackageOptions {
  /** The package folder (`<--package>/<contract>`): dist/ is compiled as if src/ were there. */
  readonly dir: string;
  readonly info: PackageInfo;
  readonly runtime: RuntimeMode;
  readonly generatorVersion: string;
  /** Input path as written in headers. */
  readonly source: string;
  /** The first line of every generated file. */
  readonly header: string;
  /** What is in the folder now (the version and changelog carry over). */
  readonly existing: { readonly packageJson?: string; readonly changelog?: string };
  /** The contract's previous version (`--previous`). */
  readonly previous?: ContractModel;
}

export interface EmittedPackage {
  /** Path inside the package folder → contents. */
  readonly files: ReadonlyMap<string, string>;
  readonly name: string;
  readonly version: string;
  /** With `--previous`: the bump the diff called for. */
  readonly bump?: Bump;
}

let runtimePackageVersion: string | undefined;

/** The installed runtime's version: what generated code was written against. */
export function runtimeVersion(): string {
  if (runtimePackageVersion === undefined) {
    const req = createRequire(import.meta.url);
    runtimePackageVersion = (req('@gen-webhooks/runtime/package.json') as { version: string }).version;
  }
  return runtimePackageVersion;
}

function existingVersion(packageJson: string | undefined): string | undefined {
  if (packageJson === undefined) return undefined;
  try {
    const version = (JSON.parse(packageJson) as { version?: unknown }).version;
    return typeof version === 'string' && isSemver(version) ? version : undefined;
  } catch {
    return undefined;
  }
}

/** Version and changelog: from the diff with `previous`, else carried over. */
function versioning(
  model: ContractModel,
  options: PackageOptions,
): { version: string; changelog: string | undefined; bump?: Bump } {
  const current = existingVersion(options.existing.packageJson);
  const changelog = options.existing.changelog;
  if (options.previous === undefined) {
    return { version: options.info.version ?? current ?? '0.1.0', changelog };
  }
  const report = diffContracts(options.previous, model);
  const bump = classifyBump(report);
  const from = contractDigest(options.previous);
  const marker = changelog === undefined ? undefined : firstEntryMarker(changelog);
  // The same previous contract as the first entry's: this release is not out yet, so redo that entry.
  const redo = marker !== undefined && marker.from === from;
  const base = redo ? marker.base : (current ?? options.info.version ?? '0.1.0');
  if (bump === 'none') {
    // Nothing changed (again): no entry, and an unreleased one for this previous contract is dropped.
    return { version: base, changelog: redo ? withEntry(changelog, undefined, true) : changelog, bump };
  }
  const version = bumpVersion(base, bump);
  const entry = changelogEntry({ version, bump, report, marker: { base, from, to: contractDigest(model) } });
  return { version, changelog: withEntry(changelog, entry, redo), bump };
}

export async function emitPackage(
  model: ContractModel,
  moduleFiles: ReadonlyMap<string, string>,
  options: PackageOptions,
): Promise<EmittedPackage> {
  const { version, changelog, bump } = versioning(model, options);
  const pkg: ResolvedPackage = {
    name: options.info.name ?? `${model.name}-webhooks`,
    version,
    description: options.info.description ?? defaultDescription(model),
    license: options.info.license ?? 'MIT',
    ...(options.info.repository === undefined ? {} : { repository: options.info.repository }),
    ...(options.info.author === undefined ? {} : { author: options.info.author }),
  };
  const src = new Map<string, string>();
  for (const [rel, text] of moduleFiles) src.set(rel, text);
  src.set(
    'runtime.ts',
    `${options.header}/** The runtime this SDK runs on: adapters, stores, WebhookError, signing. */\nexport * from '${options.runtime === 'inline' ? './runtime/index.js' : '@gen-webhooks/runtime'}';\n`,
  );
  const packageJson = emitPackageJson(pkg, {
    runtime: options.runtime,
    runtimeVersion: runtimeVersion(),
    existing: options.existing.packageJson,
  });
  const dist = await buildDist(options.dir, src, packageJson);
  const fixtures = new Map<string, unknown>();
  const ignored: Diagnostic[] = [];
  for (const event of model.events) {
    const fixture = pickFixture(model, event, ignored);
    if (fixture.valid) fixtures.set(event.name, fixture.value);
  }
  const files = new Map<string, string>();
  files.set('package.json', packageJson);
  files.set(
    'README.md',
    emitReadme({ model, pkg, fixtures, generatorVersion: options.generatorVersion, source: options.source }),
  );
  const license = licenseText(pkg.license, pkg.author ?? `the ${model.title} authors`);
  if (license !== undefined) files.set('LICENSE', license);
  if (changelog !== undefined) files.set('CHANGELOG.md', changelog);
  files.set(
    'test/smoke.test.mjs',
    emitSmokeTest({
      model,
      events: [...fixtures.keys()],
      runtimeImport: options.runtime === 'inline' ? '../dist/runtime/index.js' : '@gen-webhooks/runtime',
      header: options.header.trimEnd(),
    }),
  );
  for (const [rel, text] of src) files.set(`src/${rel}`, text);
  for (const [rel, text] of [...dist].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    files.set(`dist/${rel}`, text);
  return { files, name: pkg.name, version, ...(bump === undefined ? {} : { bump }) };
}
