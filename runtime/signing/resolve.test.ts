import { describe, expect, it } from 'vitest';
import type { SignatureConfig } from '../contract.js';
import { WebhookError } from '../errors.js';
import { createPresetScheme } from '../presets/index.js';
import { createSignatureScheme, noSignature } from './resolve.js';

function outcome(run: () => { name: string }): string {
  try {
    return `scheme:${run().name}`;
  } catch (error) {
    if (error instanceof WebhookError) return `error:${error.code}`;
    throw error;
  }
}

describe('createSignatureScheme', () => {
  it('builds standard-webhooks, hmac and none schemes', async () => {
    const standard = createSignatureScheme(
      { kind: 'standard-webhooks' },
      { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    );
    expect(standard.name).toBe('standard-webhooks');
    const headers = await standard.sign({
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
    });
    expect(headers['webhook-signature']).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');

    const hmac = createSignatureScheme(
      {
        kind: 'hmac',
        header: 'X-Webhook-Signature',
        algorithm: 'sha256',
        encoding: 'hex',
        prefix: 'sha256=',
      },
      { secret: 's' },
    );
    expect(hmac.name).toBe('hmac');

    const none = createSignatureScheme({ kind: 'none' }, { secret: [] });
    expect(none).toBe(noSignature);
    expect(await none.sign({ id: 'x', timestamp: 1, body: '' })).toEqual({});
    expect(await none.verify({ headers: {}, body: '' })).toEqual({});
  });

  it('delegates presets to createPresetScheme', () => {
    for (const preset of ['stripe', 'github', 'shopify', 'slack', 'twilio', 'discord', 'svix'] as const) {
      const options = { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };
      expect(outcome(() => createSignatureScheme({ kind: 'preset', preset }, options))).toBe(
        outcome(() => createPresetScheme(preset, options)),
      );
    }
  });

  it('rejects unknown kinds and bad options with invalid_config / invalid_secret', () => {
    expect(
      outcome(() => createSignatureScheme({ kind: 'rsa' } as unknown as SignatureConfig, { secret: 's' })),
    ).toBe('error:invalid_config');
    expect(outcome(() => createSignatureScheme({ kind: 'standard-webhooks' }, { secret: 'whsec_***' }))).toBe(
      'error:invalid_secret',
    );
  });
});
