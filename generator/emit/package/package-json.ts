/**
 * package.json of an SDK package: ESM only, `exports` with types first, `sideEffects: false`, zod as
 * a peer (the app brings its one copy) and the runtime as a dependency — or none with
 * `--runtime inline`, where the runtime is part of dist/. `./fixtures` is a separate entry so test
 * data never reaches an app's bundle or its tsc; `./runtime` re-exports the runtime (adapters,
 * stores, WebhookError) so apps never import a package they did not install.
 */
import type { ContractModel } from '../../model.js';
import type { PackageInfo } from './info.js';

export interface ResolvedPackage {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly license: string;
  readonly repository?: PackageInfo['repository'];
  readonly author?: string;
}

function entry(base: string): { types: string; default: string } {
  return { types: `./dist/${base}.d.ts`, default: `./dist/${base}.js` };
}

/** npm's shorthands (`github:org/repo`, `org/repo`) stay; a URL becomes `{ type: 'git', url: 'git+…' }`. */
function repositoryField(repository: NonNullable<PackageInfo['repository']>): PackageInfo['repository'] {
  if (typeof repository !== 'string') return repository;
  if (/^(?:(?:github|gitlab|bitbucket|gist):)?[\w.-]+\/[\w.-]+$/.test(repository)) return repository;
  if (!/^https?:\/\//.test(repository)) return { type: 'git', url: repository };
  const known = /^https?:\/\/(?:github\.com|gitlab\.com|bitbucket\.org)\/[^/]+\/[^/]+?\/?$/.test(repository);
  const url = known && !repository.endsWith('.git') ? `${repository.replace(/\/$/, '')}.git` : repository;
  return { type: 'git', url: `git+${url}` };
}

export function defaultDescription(model: ContractModel): string {
  return `Typed webhooks for ${model.title}: event types, zod schemas, a verifying receiver and a sender.`;
}

/**
 * package.json text. Top-level fields of `existing` that gen-webhooks does not write (keywords,
 * homepage, publishConfig, devDependencies…) are kept after ours, so an author's additions survive
 * regeneration; every field written here comes from the contract and the config.
 */
export function emitPackageJson(
  pkg: ResolvedPackage,
  options: {
    readonly runtime: 'package' | 'inline';
    readonly runtimeVersion: string;
    readonly existing?: string | undefined;
  },
): string {
  const json: Record<string, unknown> = {
    name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    license: pkg.license,
    ...(pkg.author === undefined ? {} : { author: pkg.author }),
    ...(pkg.repository === undefined ? {} : { repository: repositoryField(pkg.repository) }),
    type: 'module',
    sideEffects: false,
    exports: {
      '.': entry('index'),
      './fixtures': entry('fixtures'),
      './runtime': entry('runtime'),
      './package.json': './package.json',
    },
    types: './dist/index.d.ts',
    files: ['dist', 'README.md', 'LICENSE', 'CHANGELOG.md'],
    engines: { node: '>=20' },
    scripts: { test: 'node --test test/' },
    peerDependencies: { zod: '^4' },
    ...(options.runtime === 'package'
      ? { dependencies: { '@gen-webhooks/runtime': `^${options.runtimeVersion}` } }
      : {}),
  };
  for (const [key, value] of Object.entries(parseObject(options.existing))) {
    if (!OWN_FIELDS.has(key)) json[key] = value;
  }
  return `${JSON.stringify(json, null, 2)}\n`;
}

/** Fields this writer owns (absent ones included: e.g. `dependencies` is dropped with --runtime inline). */
const OWN_FIELDS = new Set([
  'name',
  'version',
  'description',
  'license',
  'author',
  'repository',
  'type',
  'sideEffects',
  'exports',
  'types',
  'files',
  'engines',
  'scripts',
  'peerDependencies',
  'dependencies',
]);

function parseObject(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    // An unreadable package.json is replaced as a whole.
    return {};
  }
}
