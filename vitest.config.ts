import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    // Generated modules import the package by name; tests resolve it to the sources, not dist/.
    alias: [
      { find: /^@gen-webhooks\/runtime$/, replacement: here('./runtime/index.ts') },
      { find: /^@gen-webhooks\/runtime\/web$/, replacement: here('./runtime/web.ts') },
      { find: /^@gen-webhooks\/runtime\/node$/, replacement: here('./runtime/index.ts') },
      { find: /^@gen-webhooks\/runtime\/generated$/, replacement: here('./runtime/generated.ts') },
      { find: /^gen-webhooks$/, replacement: here('./generator/index.ts') },
    ],
  },
  test: {
    include: ['generator/**/*.test.ts', 'runtime/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'dist/**', 'generated/**', 'test/golden/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Local service defaults and the skip summary (test/support/global-setup.ts, skip-reporter.ts).
    globalSetup: ['./test/support/global-setup.ts'],
    reporters: ['default', './test/support/skip-reporter.ts'],
  },
});
