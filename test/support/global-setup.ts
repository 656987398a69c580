/**
 * Vitest globalSetup: runs once in the main process before the test workers fork, and workers are
 * forked with this process's env, so what is set here is what the tests see.
 *  - unset service variables become the local default when it answers (local-services.ts);
 *  - GW_SKIP_LOG names a fresh folder for the skip summary (skip-log.ts, skip-reporter.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatDefaults, useLocalDefaults } from './local-services.js';
import { SKIP_LOG_ENV } from './skip-log.js';

export default async function setup(): Promise<() => void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-skips-'));
  process.env[SKIP_LOG_ENV] = dir;
  for (const line of formatDefaults(await useLocalDefaults(process.env))) console.log(line);
  // Teardown runs after the reporters' end of run, so the summary has been printed by then.
  return () => rmSync(dir, { recursive: true, force: true });
}
