/** Runs test/types/parser.test-d.ts (the generated createParser's types) through the TypeScript compiler. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, typecheck } from '../types/typecheck.js';

describe('createParser types', () => {
  it('verifyAndParse returns the event union narrowed on type; wrong uses are rejected', () => {
    const diagnostics = typecheck([path.join(repoRoot, 'test/types/parser.test-d.ts')]).filter(
      (d) => !d.startsWith('runtime/'),
    );
    expect(diagnostics).toEqual([]);
  }, 300_000);
});
