/**
 * The portal's tokens as a verifier: a token verifies only exactly as signed, for its kind, before its
 * expiry, under its key — any other string (a changed, added or removed character, another key, the
 * other kind) is refused without throwing. Property-tested with fast-check.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkCsrf, csrfToken, portalKey, signToken, verifyToken } from '../../runtime/portal/token.js';

const key = portalKey('k'.repeat(32), 'test');
const otherKey = portalKey('o'.repeat(32), 'test');
const NOW = 1_800_000_000_000;
const tenant = fc.string({ minLength: 1, maxLength: 40 });
const claims = fc.record({
  kind: fc.constantFrom('link' as const, 'session' as const),
  tenant,
  expiresAt: fc.integer({ min: NOW + 1, max: NOW + 1e9 }),
  sid: fc.string({ minLength: 1, maxLength: 30 }),
});

describe('portal tokens', () => {
  it('verify as signed, and name the tenant they were signed for', () => {
    fc.assert(
      fc.property(claims, (c) => {
        const token = signToken(key, c);
        expect(verifyToken(key, token, c.kind, NOW)).toEqual(
          c.kind === 'session' ? c : { kind: c.kind, tenant: c.tenant, expiresAt: c.expiresAt, sid: c.sid },
        );
        expect(verifyToken(otherKey, token, c.kind, NOW)).toBeUndefined();
        expect(verifyToken(key, token, c.kind === 'link' ? 'session' : 'link', NOW)).toBeUndefined();
        expect(verifyToken(key, token, c.kind, c.expiresAt)).toBeUndefined(); // expired at the instant
      }),
    );
  });

  it('refuse any edited token', () => {
    const edit = fc.record({
      at: fc.nat(),
      remove: fc.nat({ max: 3 }),
      insert: fc.string({ maxLength: 3 }),
    });
    fc.assert(
      fc.property(claims, edit, (c, e) => {
        const token = signToken(key, c);
        const at = e.at % (token.length + 1);
        const edited = token.slice(0, at) + e.insert + token.slice(at + e.remove);
        fc.pre(edited !== token);
        expect(verifyToken(key, edited, c.kind, NOW)).toBeUndefined();
      }),
    );
  });

  it('never throw on arbitrary input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' })), (text) => {
        expect(verifyToken(key, text, 'session', NOW)).toBeUndefined();
        expect(checkCsrf(key, 'sid', text)).toBe(false);
      }),
    );
    expect(verifyToken(key, null, 'link', NOW)).toBeUndefined();
    expect(verifyToken(key, 'x'.repeat(5000), 'link', NOW)).toBeUndefined();
  });

  it('bind a CSRF token to its session', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (a, b) => {
        expect(checkCsrf(key, a, csrfToken(key, a))).toBe(true);
        if (a !== b) expect(checkCsrf(key, b, csrfToken(key, a))).toBe(false);
        expect(checkCsrf(otherKey, a, csrfToken(key, a))).toBe(false);
      }),
    );
  });

  it('refuse a short key', () => {
    expect(() => portalKey('short', 'createPortalHandler')).toThrow(/at least 32 bytes/);
    expect(() => portalKey(undefined, 'createPortalHandler')).toThrow(/at least 32 bytes/);
    expect(() => portalKey(new Uint8Array(31), 'x')).toThrow(/at least 32 bytes/);
  });
});
