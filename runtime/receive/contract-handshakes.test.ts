import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HandshakeConfig } from '../handshake-config.js';
import { contractHandshakes } from './contract-handshakes.js';

const bytes = new Uint8Array();
const post = { method: 'POST', url: 'https://hooks.example/in', headers: {}, body: bytes };
const PRINTABLE = /^[\x20-\x7e]{1,1024}$/;

describe('contractHandshakes', () => {
  const slack: HandshakeConfig = {
    kind: 'echo',
    when: { body: { '/type': 'url_verification' } },
    challenge: { body: '/challenge' },
    respond: { kind: 'json', field: 'challenge' },
  };
  const own = contractHandshakes([slack], [], { verificationEvent: true });

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
    const off = contractHandshakes([slack], [], { verificationEvent: false });
    expect(await off?.after(post, body)).toBeUndefined();
    expect(contractHandshakes([], [], { verificationEvent: false })).toBeUndefined();
  });

  it('unsigned handshakes are answered before verification, signed ones only after', async () => {
    const graph: HandshakeConfig = { kind: 'echo', signed: false, challenge: { query: 'validationToken' } };
    const both = contractHandshakes([graph, slack], [], { verificationEvent: false });
    const url = 'https://hooks.example/in?validationToken=t0k';
    expect((await both?.before?.({ ...post, url }))?.body).toBe('t0k');
    const slackBody = new TextEncoder().encode('{"type":"url_verification","challenge":"c"}');
    expect(await both?.before?.({ ...post, body: slackBody })).toBeUndefined();
    expect(contractHandshakes([slack], [], { verificationEvent: true })?.before).toBeUndefined();
  });
});
