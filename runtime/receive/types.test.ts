/**
 * The receiver's compile-time contract: `types.test-d.ts` holds the type tests; this compiles it with
 * the repo's tsconfig, so a change to `types.ts` that loosens or breaks them fails here (and in
 * `npm run typecheck`). The runtime half of one rule — no store without `dedupe: false` — is below.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { petstore, SECRET } from '../../test/receiver/fixtures.js';
import { checkTypeTests, directives, type TypeTestResult } from '../../test/types/expect-errors.js';
import { createReceiver } from './receiver-web.js';

const file = path.join(import.meta.dirname, 'types.test-d.ts');
const expected = directives(file);

describe('ReceiverOptions typing (types.test-d.ts)', () => {
  let result: TypeTestResult;
  beforeAll(() => {
    result = checkTypeTests(file);
  }, 120_000);

  it('compiles: every expectTypeOf holds and every @ts-expect-error is needed', () => {
    expect(result.diagnostics).toEqual([]);
  });

  it('has directives, each naming the error it expects', () => {
    expect(expected.length).toBeGreaterThanOrEqual(9);
    expect(
      expected.filter((d) => d.code === undefined || d.fragment === undefined).map((d) => d.text),
    ).toEqual([]);
  });

  it.each(expected.map((d) => [d.line, d.text, d] as const))(
    'line %i, %s: without the directive, tsc reports that error on the next line',
    (_line, _text, directive) => {
      const errors = result.uncovered.get(directive.line) ?? [];
      expect(errors.map((e) => e.code)).toContain(directive.code);
      if (directive.fragment !== undefined) {
        const messages = errors.filter((e) => e.code === directive.code).map((e) => e.message);
        expect(
          messages.some((m) => m.includes(directive.fragment as string)),
          messages.join('\n---\n'),
        ).toBe(true);
      }
    },
  );
});

describe('createReceiver at run time', () => {
  it('throws invalid_config without a store unless dedupe is explicitly off', () => {
    // Cast past the compile-time rule (proven above) to reach the run-time one.
    const missing = { secret: SECRET, handlers: {} } as never;
    expect(() => createReceiver(petstore, missing)).toThrow(
      expect.objectContaining({ code: 'invalid_config', message: expect.stringMatching(/store/) }),
    );
    expect(() => createReceiver(petstore, { secret: SECRET, dedupe: false, handlers: {} })).not.toThrow();
  });
});
