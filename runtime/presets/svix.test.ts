import { describe, expect, it } from 'vitest';
import { clockAt, expectCode, tamper } from '../../test/presets/helpers.js';
import { providers } from './registry.js';

const { svix } = providers;

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const T = 1_614_265_330;
const body = '{"test": 2432232314}';

describe('svix / standard webhooks preset', () => {
  const scheme = svix.scheme({ secret, now: clockAt(T) });

  it('reproduces the Standard Webhooks spec example and accepts both header families', async () => {
    const signature = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
    const webhook = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': String(T),
      'webhook-signature': signature,
    };
    expect(await scheme.verify({ headers: webhook, body })).toEqual({
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: T,
    });
    const svixHeaders = {
      'svix-id': webhook['webhook-id'],
      'svix-timestamp': String(T),
      'svix-signature': signature,
    };
    expect(await scheme.verify({ headers: svixHeaders, body })).toEqual({
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: T,
    });
    expect(await scheme.sign({ id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: T, body })).toEqual(
      svixHeaders,
    );
    const webhookFamily = svix.scheme({ secret, headerPrefix: 'webhook', now: clockAt(T) });
    expect(await webhookFamily.sign({ id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: T, body })).toEqual(
      webhook,
    );
  });

  it('rejects tampering, stale timestamps and missing headers with the core error codes', async () => {
    const headers = await scheme.sign({ id: 'msg_1', timestamp: T, body });
    await expectCode(() => scheme.verify({ headers, body: tamper(body) }), 'invalid_signature');
    await expectCode(
      () => svix.scheme({ secret, now: clockAt(T + 301) }).verify({ headers, body }),
      'timestamp_too_old',
    );
    await expectCode(() => scheme.verify({ headers: {}, body }), 'missing_header');
  });

  it('dedupes on the message id and reads the envelope type', () => {
    expect(svix.eventId({ 'svix-id': 'msg_2' }, {})).toBe('msg_2');
    expect(svix.eventId({}, {}, { id: 'msg_3' })).toBe('msg_3');
    expect(svix.eventType({}, { type: 'invoice.paid', data: {} })).toBe('invoice.paid');
  });
});
