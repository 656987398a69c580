/**
 * Cross-check with the `svix` and `standardwebhooks` libraries. Both check the timestamp against the
 * real clock, so these deliveries are signed "now" (well inside the 5-minute window).
 */
import fc from 'fast-check';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { providers } from '../../runtime/presets/index.js';

const secret = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';

describe('svix preset vs the svix and standardwebhooks libraries', () => {
  const scheme = providers.svix.scheme({ secret });

  it('verifies svix-signed messages and svix verifies ours (both header families)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.json({ maxDepth: 2 }),
        fc.stringMatching(/^msg_[A-Za-z0-9]{1,27}$/),
        async (payload, id) => {
          const now = new Date();
          const timestamp = Math.floor(now.getTime() / 1000);
          const svix = new SvixWebhook(secret);
          const signature = svix.sign(id, now, payload);
          const theirs = { 'svix-id': id, 'svix-timestamp': String(timestamp), 'svix-signature': signature };
          expect(await scheme.verify({ headers: theirs, body: payload })).toEqual({ id, timestamp });
          const ours = await scheme.sign({ id, timestamp, body: payload });
          expect(ours).toEqual(theirs);
          expect(svix.verify(payload, ours)).toEqual(JSON.parse(payload));
          const unbranded = await providers.svix
            .scheme({ secret, headerPrefix: 'webhook' })
            .sign({ id, timestamp, body: payload });
          expect(new StandardWebhook(secret).verify(payload, unbranded)).toEqual(JSON.parse(payload));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('rejects what the libraries reject', () => {
    const now = new Date();
    const signature = new StandardWebhook('whsec_aW52YWxpZC1zZWNyZXQtZm9yLXRlc3Rz').sign('msg_1', now, '{}');
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    };
    expect(() => new StandardWebhook(secret).verify('{}', headers)).toThrow();
    expect(() => scheme.verify({ headers, body: '{}' })).toThrowError(
      expect.objectContaining({ code: 'invalid_signature' }),
    );
  });
});
