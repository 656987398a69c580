/**
 * Plaid, following https://plaid.com/docs/api/webhooks/webhook-verification/: the Plaid-Verification
 * JWT is built here with node:crypto (ES256 over `header.claims`, IEEE P1363 signature), its key is a
 * locally generated P-256 JWK served by an injected `getKey` (no network), `iat` must be at most
 * 5 minutes old and `request_body_sha256` the hex SHA-256 of the body.
 */
import { createHash, generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clockAt, expectCode, tamper } from '../../test/presets/helpers.js';
import { plaid } from './plaid.js';
import type { PlaidKey } from './types.js';

const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const kid = 'bfbd5111-8e33-4643-8ced-b2e642a72f3c';
const jwk = {
  ...(pair.publicKey.export({ format: 'jwk' }) as PlaidKey),
  alg: 'ES256',
  kid,
  use: 'sig',
  created_at: 1,
  expired_at: null,
};
const T = 1_732_000_000;
const body = JSON.stringify({
  webhook_type: 'TRANSACTIONS',
  webhook_code: 'SYNC_UPDATES_AVAILABLE',
  item_id: 'wz666MBjYWTp2PDzzggYhM6oWWmBb',
  initial_update_complete: true,
  historical_update_complete: false,
  environment: 'production',
});
const b64url = (value: object | Buffer) =>
  (Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value))).toString('base64url');

function jwt(
  claims: object,
  header: object = { alg: 'ES256', kid, typ: 'JWT' },
  key = pair.privateKey,
): string {
  const input = `${b64url(header)}.${b64url(claims)}`;
  const signature = nodeSign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${b64url(signature)}`;
}
const claimsFor = (text: string, iat = T) => ({
  iat,
  request_body_sha256: createHash('sha256').update(text).digest('hex'),
});

describe('plaid preset', () => {
  const fetched: string[] = [];
  const getKey = (id: string): PlaidKey => {
    fetched.push(id);
    if (id !== kid) throw new Error('unknown kid');
    return jwk;
  };
  const scheme = plaid.scheme({ secret: 'unused', getKey, now: clockAt(T) });

  it('verifies a JWT built as the docs describe, fetching the key once per kid', async () => {
    const headers = { 'plaid-verification': jwt(claimsFor(body)) };
    const verified = await scheme.verify({ headers, body });
    expect(verified.timestamp).toBe(T);
    expect(verified.id).toBe(`plaid:${createHash('sha256').update(body).digest('hex')}`);
    await scheme.verify({ headers, body });
    expect(fetched).toEqual([kid]);
    expect(plaid.eventType({}, plaid.parseBody(body, {}))).toBe('TRANSACTIONS.SYNC_UPDATES_AVAILABLE');
  });

  it('refuses another body, another alg, an unknown or expired key, and a stale iat', async () => {
    const token = jwt(claimsFor(body));
    await expectCode(
      () => scheme.verify({ headers: { 'plaid-verification': token }, body: tamper(body) }),
      'invalid_signature',
    );
    await expectCode(
      () =>
        scheme.verify({
          headers: { 'plaid-verification': jwt(claimsFor(body), { alg: 'HS256', kid }) },
          body,
        }),
      'invalid_signature',
    );
    await expectCode(
      () =>
        scheme.verify({
          headers: { 'plaid-verification': jwt(claimsFor(body), { alg: 'ES256', kid: 'other' }) },
          body,
        }),
      'invalid_signature',
    );
    const stranger = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    await expectCode(
      () =>
        scheme.verify({ headers: { 'plaid-verification': jwt(claimsFor(body), undefined, stranger) }, body }),
      'invalid_signature',
    );
    await expectCode(
      () => scheme.verify({ headers: { 'plaid-verification': jwt(claimsFor(body, T - 301)) }, body }),
      'timestamp_too_old',
    );
    const expired = plaid.scheme({
      secret: 'unused',
      getKey: () => ({ ...jwk, expired_at: T - 10 }),
      now: clockAt(T),
    });
    await expectCode(
      () => expired.verify({ headers: { 'plaid-verification': token }, body }),
      'invalid_signature',
    );
    await expectCode(
      () => scheme.verify({ headers: { 'plaid-verification': 'a.b' }, body }),
      'malformed_header',
    );
    await expectCode(
      () =>
        plaid
          .scheme({ secret: 'unused', now: clockAt(T) })
          .verify({ headers: { 'plaid-verification': token }, body }),
      'invalid_config',
    );
  });

  it('signs (tests, send) JWTs that verify', async () => {
    const pkcs8 = new Uint8Array(pair.privateKey.export({ format: 'der', type: 'pkcs8' }));
    const signer = plaid.scheme({ secret: 'unused', getKey, signingKey: pkcs8, keyId: kid, now: clockAt(T) });
    const headers = await signer.sign({ id: '-', timestamp: T, body });
    expect((await signer.verify({ headers, body })).timestamp).toBe(T);
  });
});
