/**
 * A reporter beside the default one: at the end of the run it prints the skip summary — one line per
 * skipped group with its reason (service, binary, corpus file) — from the records the workers wrote.
 */
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { formatSkipSummary, readSkips, SKIP_LOG_ENV } from './skip-log.js';

export default class SkipReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(modules: readonly TestModule[]): void {
    const dir = process.env[SKIP_LOG_ENV];
    if (dir === undefined || this.vitest === undefined) return;
    // A -t filter skips whatever it does not match; counting those would blame the wrong thing.
    const filtered = this.vitest.config.testNamePattern !== undefined;
    const skipped = new Map<string, number>();
    for (const module of modules) {
      let count = 0;
      for (const test of module.children.allTests()) if (test.result().state === 'skipped') count++;
      if (count > 0 && !filtered) skipped.set(module.moduleId, count);
    }
    const lines = formatSkipSummary(readSkips(dir), skipped, this.vitest.config.root);
    if (lines.length > 0) this.vitest.logger.log(`\n${lines.join('\n')}\n`);
  }
}
