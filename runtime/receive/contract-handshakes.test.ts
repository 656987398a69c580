import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HandshakeConfig } from '../handshake-config.js';
import { declaredHandshakes } from './contract-handshakes.js';

const bytes = new Uint8Array();
const post = { method: 'POST', url: 'https://hooks.example/in', headers: {}, body: bytes };
const PRINTABLE = /^[\x20-\x7e]{1,1024}$/;

describe('declaredHandshakes', () => {
  const slack: HandshakeConfig = {
    kind: 'echo',
    when: { body: { '/type': 'url_verification' } },
    challenge: { body: '/challenge' },
    respond: { kind: 'json', field: 'challenge' },
  };
  const own = declaredHandshakes([slack], [], { verificationEvent: true });

  it('echoes exactly a printable challenge of 1–1024 characters, and nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ maxLength: 1100 }), fc.string({ minLength: 1020, maxLength: 1030 })),
        async (challenge) => {
          const answer = await own?.after(post, { type: 'url_verification', challenge });
          if (PRINTABLE.test(challenge)) expect(answer?.body).toBe(JSON.stringify({ challenge }));
          else expect(answer).toBeUndefined();
        },
      ),
    );
  });

  it('never answers a body the condition does not hold for (nor a verification event of another shape)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => {
        const type = (body as { type?: unknown } | null)?.type;
        fc.pre(type !== 'url_verification' && type !== 'webhook.verification');
        expect(await own?.after(post, body)).toBeUndefined();
      }),
    );
  });

  it('answers the sender verification event only when asked to', async () => {
    const body = {
      type: 'webhook.verification',
      timestamp: '2026-01-01T00:00:00Z',
      data: { challenge: 'abc' },
    };
    expect((await own?.after(post, body))?.body).toBe('{"challenge":"abc"}');
    const off = declaredHandshakes([slack], [], { verificationEvent: false });
    expect(await off?.after(post, body)).toBeUndefined();
    expect(declaredHandshakes([], [], { verificationEvent: false })).toBeUndefined();
  });

  it('unsigned handshakes are answered before verification, signed ones only after', async () => {
    const graph: HandshakeConfig = { kind: 'echo', signed: false, challenge: { query: 'validationToken' } };
    const both = declaredHandshakes([graph, slack], [], { verificationEvent: false });
    const url = 'https://hooks.example/in?validationToken=t0k';
    expect((await both?.before?.({ ...post, url }))?.body).toBe('t0k');
    const slackBody = new TextEncoder().encode('{"type":"url_verification","challenge":"c"}');
    expect(await both?.before?.({ ...post, body: slackBody })).toBeUndefined();
    expect(declaredHandshakes([slack], [], { verificationEvent: true })?.before).toBeUndefined();
  });

  describe('verifyToken', () => {
    const meta: HandshakeConfig = {
      kind: 'echo',
      method: 'GET',
      when: { query: { 'hub.mode': 'subscribe' } },
      verifyToken: { query: 'hub.verify_token' },
      challenge: { query: 'hub.challenge' },
    };
    const bodyToken: HandshakeConfig = {
      kind: 'echo',
      verifyToken: { body: '/token' },
      challenge: { body: '/challenge' },
    };
    const get = (query: string) => ({ ...post, method: 'GET', url: `https://hooks.example/in?${query}` });

    it('echoes only when the token equals the configured one; any other is 403 without the challenge', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.string({ minLength: 1, maxLength: 40 }),
          fc.string(),
          async (configured, sent) => {
            const own = declaredHandshakes([meta], [], { verificationEvent: false, verifyToken: configured });
            const q = new URLSearchParams({
              'hub.mode': 'subscribe',
              'hub.verify_token': sent,
              'hub.challenge': 'c1',
            });
            const answer = await own?.before?.(get(q.toString()));
            if (sent === configured) expect(answer).toMatchObject({ status: 200, body: 'c1' });
            else {
              expect(answer?.status).toBe(403);
              expect(answer?.body ?? '').not.toContain('c1');
            }
          },
        ),
      );
    });

    it('a missing token is 403; a request the condition does not hold for is no handshake', async () => {
      const own = declaredHandshakes([meta], [], { verificationEvent: false, verifyToken: 't0k' });
      expect((await own?.before?.(get('hub.mode=subscribe&hub.challenge=c1')))?.status).toBe(403);
      expect(await own?.before?.(get('hub.mode=other&hub.challenge=c1'))).toBeUndefined();
    });

    it('reads the token from a body pointer (a signed POST): only a string equal to it passes', async () => {
      const own = declaredHandshakes([bodyToken], [], { verificationEvent: false, verifyToken: 't0k' });
      expect(await own?.after(post, { token: 't0k', challenge: 'c1' })).toMatchObject({
        status: 200,
        body: 'c1',
      });
      for (const token of ['t0K', 't0k ', ['t0k'], 7, null, undefined]) {
        const answer = await own?.after(post, { token, challenge: 'c1' });
        expect(answer?.status, JSON.stringify(token)).toBe(403);
      }
    });

    it('without a configured token the receiver cannot be built: invalid_config with the pointer', () => {
      for (const verifyToken of [undefined, '']) {
        expect(() =>
          declaredHandshakes([bodyToken, meta], [], { verificationEvent: false, verifyToken }),
        ).toThrow(
          expect.objectContaining({
            code: 'invalid_config',
            details: { pointer: '/x-gen-webhooks/handshakes/0/verifyToken' },
          }),
        );
      }
      // A contract without a token check needs none.
      expect(
        declaredHandshakes([{ ...meta, verifyToken: undefined }], [], { verificationEvent: false }),
      ).toBeDefined();
    });
  });
});
