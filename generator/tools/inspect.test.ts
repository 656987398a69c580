import { createSignatureScheme } from '@gen-webhooks/runtime';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContractModel } from '../model.js';
import { createTarget, inspectRequest } from './inspect.js';
import { selectEvent } from './select-event.js';

const model: ContractModel = {
  name: 'repo',
  title: 'Repo',
  version: '1',
  format: 'openapi-3.1',
  file: 'repo.yaml',
  diagnostics: [],
  schemas: {},
  signature: {
    kind: 'hmac',
    header: 'X-Sig',
    algorithm: 'sha256',
    encoding: 'hex',
    prefix: 'sha256=',
    idHeader: 'X-Id',
  },
  envelope: { kind: 'bare' },
  selector: { kind: 'header', header: 'X-Event', bodyField: 'action' },
  events: [
    {
      name: 'issue.opened',
      source: 'repo.yaml#/a',
      examples: [],
      match: { header: 'issues', body: 'opened' },
      payload: {
        source: 'repo.yaml#/a',
        schema: { type: 'object', required: ['number'], properties: { number: { type: 'integer' } } },
      },
    },
    {
      name: 'ping',
      source: 'repo.yaml#/b',
      examples: [],
      match: { header: 'ping' },
      payload: { source: 'repo.yaml#/b', schema: true },
    },
  ],
};

describe('selectEvent', () => {
  it('matches header plus body field, header alone for events without a body match', () => {
    expect(
      selectEvent(model, model.selector, { 'x-event': 'issues' }, { action: 'opened' }).event?.name,
    ).toBe('issue.opened');
    expect(selectEvent(model, model.selector, { 'x-event': 'ping' }, {}).event?.name).toBe('ping');
    expect(selectEvent(model, model.selector, { 'x-event': 'issues' }, { action: 'closed' })).toMatchObject({
      detail: 'unknown event (X-Event: issues with action = "closed"); the contract has issue.opened, ping',
      at: 'x-event',
    });
    expect(selectEvent(model, model.selector, {}, {})).toMatchObject({
      detail: 'missing the X-Event header that names the event',
    });
  });

  it('reads a body field by dot path', () => {
    const byBody: ContractModel = { ...model, selector: { kind: 'body', field: 'meta.kind' } };
    const withMatch = {
      ...byBody,
      events: [{ ...model.events[1], name: 'ping', match: undefined }],
    } as ContractModel;
    expect(selectEvent(withMatch, withMatch.selector, {}, { meta: { kind: 'ping' } }).event?.name).toBe(
      'ping',
    );
    expect(selectEvent(withMatch, withMatch.selector, {}, { meta: {} }).at).toBe('/meta/kind');
  });
});

describe('inspectRequest', () => {
  const secret = 'inspect-secret';
  const scheme = createSignatureScheme(model.signature, { secret });
  const target = createTarget(model, { secrets: [secret] });
  const body = new TextEncoder().encode(JSON.stringify({ action: 'opened', number: 3 }));

  it('passes every check of a valid delivery', async () => {
    const headers = { ...(await scheme.sign({ id: 'd1', timestamp: 0, body })), 'X-Event': 'issues' };
    const result = await inspectRequest({ headers: lower(headers), body }, [target]);
    expect(result).toMatchObject({
      ok: true,
      status: 200,
      event: 'issue.opened',
      id: 'd1',
      contract: 'repo',
    });
    expect(result.checks.map((c) => c.name)).toEqual(['signature', 'event', 'payload']);
  });

  it('any changed byte fails the signature check with 401 (and the rest is still reported)', async () => {
    const headers = lower({ ...(await scheme.sign({ id: 'd1', timestamp: 0, body })), 'X-Event': 'issues' });
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: body.length - 1 }),
        fc.integer({ min: 1, max: 255 }),
        async (index, xor) => {
          const tampered = Uint8Array.from(body);
          tampered[index] = (tampered[index] ?? 0) ^ xor;
          const result = await inspectRequest({ headers, body: tampered }, [target]);
          expect(result.ok).toBe(false);
          expect(result.status).toBe(401);
          expect(result.checks[0]).toMatchObject({ name: 'signature', ok: false, at: 'x-sig' });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reports an invalid payload with the pointer, and an unknown event', async () => {
    const bad = new TextEncoder().encode(JSON.stringify({ action: 'opened', number: 'three' }));
    const headers = lower({
      ...(await scheme.sign({ id: 'd2', timestamp: 0, body: bad })),
      'X-Event': 'issues',
    });
    const result = await inspectRequest({ headers, body: bad }, [target]);
    expect(result.status).toBe(400);
    expect(result.checks.at(-1)).toMatchObject({ name: 'payload', ok: false, at: '/number' });
    const unknown = await inspectRequest({ headers: { ...headers, 'x-event': 'push' }, body: bad }, [target]);
    expect(unknown.checks.at(-1)).toMatchObject({ name: 'event', ok: false });
  });

  it('says the signature was not checked when no secret was given', async () => {
    const result = await inspectRequest(
      { headers: { 'x-event': 'ping', 'x-id': 'd3' }, body: new TextEncoder().encode('{}') },
      [createTarget(model, {})],
    );
    expect(result).toMatchObject({ ok: true, event: 'ping', id: 'd3' });
    expect(result.checks[0]).toMatchObject({ name: 'signature', ok: true, skipped: true });
  });
});

function lower(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

describe('inspectRequest, asymmetric contract', () => {
  it("verifies with the sender's public key given as --secret", async () => {
    const { generateKeyPairSync, sign } = await import('node:crypto');
    const { loadContract } = await import('../parse/index.js');
    const keys = await loadContract('test/golden/specs/keys.openapi31.yaml');
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const target = createTarget(keys, {
      secrets: [publicKey.export({ format: 'pem', type: 'spki' }).toString()],
      now: () => 1_000_000_000_000,
    });
    const text = JSON.stringify({ type: 'invoice.voided', invoiceId: 'inv_1' });
    const headers = {
      'x-invoice-timestamp': '1000000000',
      'x-invoice-signature': sign(null, Buffer.from(`1000000000.${text}`), privateKey).toString('base64'),
    };
    const body = new TextEncoder().encode(text);
    const passed = await inspectRequest({ headers, body }, [target]);
    expect(passed).toMatchObject({ ok: true, event: 'invoice.voided' });
    const forged = new TextEncoder().encode(text.replace('inv_1', 'inv_2'));
    const result = await inspectRequest({ headers, body: forged }, [target]);
    expect(result.status).toBe(401);
  });
});
