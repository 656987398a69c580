import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectCode, tamper } from '../../test/presets/helpers.js';
import { providers } from './registry.js';

const { github } = providers;

const secret = "It's a Secret to Everybody";
const body = JSON.stringify({ action: 'opened', issue: { number: 1 } });
const sha1 = (payload: string, key = secret) => createHmac('sha1', key).update(payload).digest('hex');

describe('github preset', () => {
  const scheme = github.scheme({ secret });

  it("reproduces GitHub's documented example signature", async () => {
    const headers = await scheme.sign({ id: 'd1', timestamp: 0, body: 'Hello, World!' });
    expect(headers['X-Hub-Signature-256']).toBe(
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
    const verified = await scheme.verify({
      headers: { 'x-hub-signature-256': headers['X-Hub-Signature-256'] ?? '', 'x-github-delivery': 'd1' },
      body: new TextEncoder().encode('Hello, World!'),
    });
    expect(verified).toEqual({ id: 'd1' });
  });

  it('verifies with any rotation secret and returns the delivery id', async () => {
    const headers = await github.scheme({ secret: 'new-secret' }).sign({ id: 'guid-1', timestamp: 0, body });
    const rotating = github.scheme({ secret: ['old-secret', 'new-secret'] });
    expect(await rotating.verify({ headers: new Headers(headers), body })).toEqual({ id: 'guid-1' });
  });

  it('rejects tampered bodies, wrong secrets, malformed and missing headers', async () => {
    const headers = await scheme.sign({ id: 'd', timestamp: 0, body });
    await expectCode(() => scheme.verify({ headers, body: tamper(body) }), 'invalid_signature', 401);
    await expectCode(() => github.scheme({ secret: 'nope' }).verify({ headers, body }), 'invalid_signature');
    await expectCode(() => scheme.verify({ headers: {}, body }), 'missing_header');
    const digest = headers['X-Hub-Signature-256']?.slice(7) ?? '';
    for (const value of [
      digest,
      `sha1=${digest}`,
      'sha256=',
      `sha256=${digest.slice(2)}`,
      `sha256=${'z'.repeat(64)}`,
      // The same digest in upper case is another text (octokit compares text): not a second spelling.
      `sha256=${digest.toUpperCase()}`,
      `sha256=${digest}00`,
    ]) {
      await expectCode(
        () => scheme.verify({ headers: { 'X-Hub-Signature-256': value }, body }),
        'malformed_header',
      );
    }
  });

  it('accepts the legacy sha1 header only when configured, and never instead of a present sha256', async () => {
    const legacyHeaders = { 'X-Hub-Signature': `sha1=${sha1(body)}` };
    await expectCode(() => scheme.verify({ headers: legacyHeaders, body }), 'missing_header');
    const legacy = github.scheme({ secret, legacySha1: true });
    expect(await legacy.verify({ headers: legacyHeaders, body })).toEqual({});
    await expectCode(
      () => legacy.verify({ headers: legacyHeaders, body: tamper(body) }),
      'invalid_signature',
    );
    // A forged sha256 next to a valid sha1 fails: the stronger header is authoritative.
    await expectCode(
      () =>
        legacy.verify({
          headers: { ...legacyHeaders, 'X-Hub-Signature-256': `sha256=${'0'.repeat(64)}` },
          body,
        }),
      'invalid_signature',
    );
    const signed = await legacy.sign({ id: 'd', timestamp: 0, body });
    expect(signed['X-Hub-Signature']).toBe(`sha1=${sha1(body)}`);
  });

  it('derives the event name from X-GitHub-Event plus the body action', () => {
    const headers = {
      'x-github-event': 'issues',
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
    };
    const parsed = github.parseBody(body, headers);
    expect(github.eventType(headers, parsed)).toBe('issues.opened');
    expect(github.eventType({ 'x-github-event': 'push' }, { ref: 'refs/heads/main' })).toBe('push');
    expect(github.eventType({}, parsed)).toBeUndefined();
    expect(github.eventId(headers, parsed)).toBe('72d3162e-cc78-11e3-81ab-4c9367dc0958');
    expect(github.match('issues.opened')).toEqual({ header: 'issues', body: 'opened' });
    expect(github.match('push')).toEqual({ header: 'push' });
    expect(github.selector).toEqual({ kind: 'header', header: 'X-GitHub-Event', bodyField: 'action' });
  });
});
