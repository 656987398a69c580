/** Runs the compile-only type tests (test/types/*.test-d.ts) through the TypeScript compiler. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, typecheck } from './types/typecheck.js';

describe('type tests', () => {
  it('test/types/petstore.test-d.ts compiles: wrong payloads, unknown events and missing handlers are rejected', () => {
    const diagnostics = typecheck([path.join(repoRoot, 'test/types/petstore.test-d.ts')]).filter(
      // The runtime is checked by `npm run typecheck`; these tests are about the generated API.
      (d) => !d.startsWith('runtime/'),
    );
    expect(diagnostics).toEqual([]);
  }, 300_000);

  it('test/types/test-delivery.test-d.ts compiles: wrong events, payloads and options are rejected', () => {
    const diagnostics = typecheck([path.join(repoRoot, 'test/types/test-delivery.test-d.ts')]).filter(
      (d) => !d.startsWith('runtime/'),
    );
    expect(diagnostics).toEqual([]);
  }, 300_000);
});
