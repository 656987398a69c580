/**
 * The `package: { … }` config of `--package`: what package.json, README and LICENSE say about the SDK.
 * Checked up front so a bad name or version is a GeneratorError naming the field, never a package
 * npm refuses to publish.
 */
import semver from 'semver';
import parseSpdx from 'spdx-expression-parse';
import validateName from 'validate-npm-package-name';
import { GeneratorError } from '../../errors.js';

export type Repository =
  | string
  | { readonly type: string; readonly url: string; readonly directory?: string };

export interface PackageInfo {
  /** npm name. Default `<contract-name>-webhooks`. */
  readonly name?: string;
  /** Semver. Default: the existing package.json's, else `0.1.0`; with `--previous`, the base of the bump. */
  readonly version?: string;
  readonly description?: string;
  /** SPDX id. Default `MIT`. LICENSE is written for MIT, ISC, BSD-2-Clause, BSD-3-Clause and 0BSD. */
  readonly license?: string;
  readonly repository?: Repository;
  /** Copyright holder in LICENSE and `author` in package.json. */
  readonly author?: string;
}

/** npm's own special license values, beside SPDX expressions. */
const NPM_LICENSE = /^(?:UNLICENSED|SEE LICENSE IN \S+)$/;

/** A semver 2.0.0 version (build metadata allowed), as npm's own `semver` reads it. */
export function isSemver(version: string): boolean {
  const parsed = semver.parse(version);
  // `parse` also takes `v1.2.3` and surrounding spaces; npm publishes only the canonical spelling.
  const build = parsed?.build.length ? `+${parsed.build.join('.')}` : '';
  return parsed !== null && `${parsed.version}${build}` === version;
}

/** An SPDX expression (`MIT`, `(MIT OR Apache-2.0)`, ids in their SPDX spelling), or npm's own values. */
export function isLicense(license: string): boolean {
  if (NPM_LICENSE.test(license)) return true;
  try {
    parseSpdx(license);
    return true;
  } catch {
    return false;
  }
}

const KNOWN = new Set(['name', 'version', 'description', 'license', 'repository', 'author']);

function invalid(file: string | undefined, field: string, message: string, expected: string): GeneratorError {
  return new GeneratorError('invalid_config', `package.${field} ${message}`, {
    ...(file === undefined ? {} : { file }),
    pointer: `/package/${field}`,
    expected,
  });
}

/** npm's rules for new package names (no core module names, no `node_modules`, no `~'!()*`). */
export function isValidPackageName(name: string): boolean {
  return validateName(name).validForNewPackages;
}

/** Validates `package` from a config file (or the programmatic API); `file` names the config in errors. */
export function validatePackageInfo(raw: unknown, file?: string): PackageInfo {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new GeneratorError('invalid_config', '`package` must be an object', {
      ...(file === undefined ? {} : { file }),
      pointer: '/package',
      expected: '{ name, version, description, license, repository, author }',
    });
  }
  const value = raw as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    if (!KNOWN.has(key)) throw invalid(file, key, 'is not a package option', [...KNOWN].join(', '));
  }
  const info: { -readonly [K in keyof PackageInfo]: PackageInfo[K] } = {};
  for (const field of ['name', 'version', 'description', 'license', 'author'] as const) {
    const v = value[field];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.trim() === '')
      throw invalid(file, field, 'must be a non-empty string', 'a string');
    info[field] = v;
  }
  if (info.name !== undefined && !isValidPackageName(info.name)) {
    throw invalid(
      file,
      'name',
      `${JSON.stringify(info.name)} is not a valid npm package name`,
      'lower case, URL-safe, e.g. @acme/petstore-webhooks',
    );
  }
  if (info.version !== undefined && !isSemver(info.version)) {
    throw invalid(file, 'version', `${JSON.stringify(info.version)} is not a semver version`, 'e.g. 1.2.0');
  }
  if (info.license !== undefined && !isLicense(info.license)) {
    throw invalid(
      file,
      'license',
      `${JSON.stringify(info.license)} is not an SPDX license expression`,
      'e.g. MIT or Apache-2.0',
    );
  }
  const repository = value['repository'];
  if (repository !== undefined) {
    const ok =
      (typeof repository === 'string' && repository.trim() !== '') ||
      (typeof repository === 'object' &&
        repository !== null &&
        typeof (repository as Record<string, unknown>)['type'] === 'string' &&
        typeof (repository as Record<string, unknown>)['url'] === 'string' &&
        ['undefined', 'string'].includes(typeof (repository as Record<string, unknown>)['directory']));
    if (!ok)
      throw invalid(
        file,
        'repository',
        'must be a URL or { type, url, directory? }',
        'a string or { type: "git", url }',
      );
    info.repository = repository as Repository;
  }
  return info;
}
