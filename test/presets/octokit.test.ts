/** Cross-check with @octokit/webhooks-methods (GitHub's signing as octokit implements it). */
import { sign, verify } from '@octokit/webhooks-methods';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { providers } from '../../runtime/presets/index.js';
import { expectCode } from './helpers.js';

const secret = 'octokit-cross-check-secret';

describe('github preset vs @octokit/webhooks-methods', () => {
  const scheme = providers.github.scheme({ secret });

  it("reproduces GitHub's documented vector through octokit too", async () => {
    const expected = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(await sign("It's a Secret to Everybody", 'Hello, World!')).toBe(expected);
  });

  it('verifies octokit signatures and octokit verifies ours, on arbitrary payloads', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 }), async (payload) => {
        const theirs = await sign(secret, payload);
        expect(await scheme.verify({ headers: { 'x-hub-signature-256': theirs }, body: payload })).toEqual(
          {},
        );
        const ours = (await scheme.sign({ id: 'd', timestamp: 0, body: new TextEncoder().encode(payload) }))[
          'X-Hub-Signature-256'
        ];
        expect(ours).toBe(theirs);
        expect(await verify(secret, payload, ours ?? '')).toBe(true);
        expect(await verify('another secret', payload, ours ?? '')).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it('rejects what octokit rejects: another secret', async () => {
    const theirs = await sign('another secret', '{"a":1}');
    await expectCode(
      () => scheme.verify({ headers: { 'x-hub-signature-256': theirs }, body: '{"a":1}' }),
      'invalid_signature',
    );
  });
});
