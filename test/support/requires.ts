/**
 * Skip conditions for tests that need something outside the repository (a database, a binary, the
 * shared corpus). Each `missing…` function answers "should this skip?": locally a missing
 * requirement skips with the reason printed once; under `CI=true` it throws instead, so the test (or
 * the file, when called at the top level) fails with a message naming what is missing — a CI run
 * that silently skipped the PostgreSQL suite would prove nothing about PostgreSQL.
 *
 *   describe.skipIf(missingEnv('DATABASE_URL', 'the PostgreSQL store tests'))('postgresStore', …)
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { recordSkip } from './skip-log.js';

type Env = Readonly<Record<string, string | undefined>>;

/** What an environment variable stands for, for the message. */
const SERVICES: Readonly<Record<string, string>> = {
  DATABASE_URL: 'PostgreSQL',
  REDIS_URL: 'Redis',
  AMQP_URL: 'RabbitMQ',
  NATS_URL: 'NATS',
};

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The third-party corpus (see its SOURCES.md files): `CORPUS_DIR`, else `../shared/corpus` beside the repo. */
export function corpusDir(env: Env = process.env): string {
  const dir = env['CORPUS_DIR'];
  return dir !== undefined && dir !== '' ? path.resolve(dir) : path.resolve(repoRoot, '../shared/corpus');
}

/** True under `CI=true` (also `CI=1`): GitHub Actions, GitLab and most CI services set it. */
export function isCi(env: Env = process.env): boolean {
  const ci = env['CI']?.toLowerCase();
  return ci === 'true' || ci === '1';
}

const warned = new Set<string>();

/**
 * The common step: `problem` is undefined when the requirement is met. Returns true (skip) locally,
 * throws under CI.
 */
export function decide(problem: string | undefined, what: string, env: Env = process.env): boolean {
  if (problem === undefined) return false;
  if (isCi(env)) throw new Error(`CI=true: ${problem}; ${what} cannot be skipped in CI`);
  // For the end-of-run summary (see skip-log.ts); vitest knows which test file is being collected.
  recordSkip({ file: expect.getState().testPath, what, problem }, env);
  const line = `skipping ${what}: ${problem}`;
  if (!warned.has(line)) {
    warned.add(line);
    console.warn(line);
  }
  return true;
}

/**
 * Skip unless the environment variable is set and not empty (DATABASE_URL, REDIS_URL, AMQP_URL,
 * NATS_URL). The suite's globalSetup sets unset ones to the local default when it answers.
 */
export function missingEnv(name: string, what: string, env: Env = process.env): boolean {
  const value = env[name];
  const service = SERVICES[name];
  const problem =
    value === undefined || value === ''
      ? `${name} is not set${service === undefined ? '' : ` (this needs ${service})`}`
      : undefined;
  return decide(problem, what, env);
}

/** Skip unless `command --version`-style probe runs (default argument `version`, as openssl takes). */
export function missingBinary(
  command: string,
  what: string,
  probe: readonly string[] = ['version'],
  env: Env = process.env,
): boolean {
  let problem: string | undefined;
  try {
    execFileSync(command, [...probe], { stdio: 'ignore', timeout: 10_000 });
  } catch {
    problem = `the ${command} CLI is not installed (\`${[command, ...probe].join(' ')}\` failed)`;
  }
  return decide(problem, what, env);
}

/** Skip unless the file or folder exists. */
export function missingPath(file: string, what: string, env: Env = process.env): boolean {
  return decide(existsSync(file) ? undefined : `${file} is not present`, what, env);
}

/** Skip unless the shared corpus (or `sub`, a path inside it) is present. */
export function missingCorpus(what: string, sub = '', env: Env = process.env): boolean {
  const dir = corpusDir(env);
  const target = sub === '' ? dir : path.join(dir, sub);
  const problem = existsSync(target)
    ? undefined
    : `${target} is not present (the shared corpus; set CORPUS_DIR to its folder)`;
  return decide(problem, what, env);
}
