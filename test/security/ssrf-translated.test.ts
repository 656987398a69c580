/**
 * Attack: register an endpoint whose address is an IPv6 form that embeds an internal IPv4 address
 * in a way the SSRF guard does not recognise — IPv4-translated `::ffff:0:a.b.c.d` (SIIT, RFC 2765;
 * `::ffff:0:0:0/96`, next to the IPv4-mapped `::ffff:0:0/96`), NAT64 `64:ff9b::a.b.c.d`, 6to4
 * `2002:AABB:CCDD::`, IPv4-compatible `::a.b.c.d` — as a URL literal or as a DNS answer, so the
 * sender calls loopback, a private network or the cloud metadata service.
 *
 * What must hold: every IPv6 embedding of a non-public IPv4 address is refused (`blocked_address`),
 * in any spelling (dotted tail, hex groups, uncompressed); IPv4-translated addresses are refused even
 * around a public IPv4 address (they only mean something inside a translator's domain), and so is the
 * rest of the IETF-reserved `::/8`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAddress, parseAddress } from '../../runtime/deliver/address.js';
import { checkUrl, compileUrlPolicy, resolveTarget } from '../../runtime/deliver/url-policy.js';
import { WebhookError } from '../../runtime/errors.js';

const policy = compileUrlPolicy({ lookup: async () => [{ address: '93.184.216.34', family: 4 }] });

function codeOf(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    if (error instanceof WebhookError) return error.code;
    throw error;
  }
}

const hex = (a: number, b: number) => ((a << 8) | b).toString(16);

/** Every IPv6 spelling of an embedding of `v4` the guard must understand. */
function embeddings(p: readonly [number, number, number, number]): Record<string, string[]> {
  const dotted = p.join('.');
  const groups = `${hex(p[0], p[1])}:${hex(p[2], p[3])}`;
  return {
    mapped: [`::ffff:${dotted}`, `::ffff:${groups}`, `0:0:0:0:0:ffff:${groups}`],
    translated: [`::ffff:0:${dotted}`, `::ffff:0:${groups}`, `0:0:0:0:ffff:0:${groups}`],
    nat64: [`64:ff9b::${dotted}`, `64:ff9b::${groups}`],
    '6to4': [`2002:${groups}::1`, `2002:${groups}:0:0:0:0:0`],
  };
}

const v4Arb = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
const v4Class = (p: readonly number[]) => classifyAddress(parseAddress(p.join('.'))!);

describe('IPv6 addresses that embed an IPv4 address', () => {
  it.each([
    'https://[::ffff:0:127.0.0.1]/hook',
    'https://[::ffff:0:7f00:1]/hook',
    'https://[::ffff:0:a9fe:a9fe]/latest/meta-data',
    'https://[0:0:0:0:ffff:0:a00:1]/',
    'https://[::ffff:0:8.8.8.8]/',
    'https://[64:ff9b::169.254.169.254]/',
    'https://[2002:c0a8:101::1]/',
    'https://[::10.0.0.1]/',
    'https://[::1:0:0:1]/',
  ])('%s is refused as a URL literal', (url) => {
    expect(codeOf(() => checkUrl(url, policy))).toBe('blocked_address');
  });

  it('a host name resolving to a translated internal address is refused', async () => {
    const rebinding = compileUrlPolicy({
      lookup: async () => [{ address: '::ffff:0:127.0.0.1', family: 6 }],
    });
    await expect(resolveTarget('https://hooks.example.com/in', rebinding)).rejects.toMatchObject({
      code: 'blocked_address',
      // The class is the operator's to see (the cause); the caller is told "not a public address".
      cause: { details: { reason: 'loopback' } },
    });
  });

  it('any embedding of a non-public IPv4 address is refused, with the IPv4 address class (property)', () => {
    fc.assert(
      fc.property(v4Arb, (p) => {
        const expected = v4Class(p);
        for (const [form, spellings] of Object.entries(embeddings(p))) {
          for (const text of spellings) {
            const addr = parseAddress(text);
            expect(addr, text).toBeDefined();
            const cls = classifyAddress(addr!);
            if (expected !== undefined) expect(cls, text).toBe(expected);
            else if (form === 'translated') expect(cls, text).toBe('reserved');
            else expect(cls, text).toBeUndefined();
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('an allow-listed IPv4 address does not admit its translated form', () => {
    const local = compileUrlPolicy({ allowAddresses: ['127.0.0.1'] });
    expect(codeOf(() => checkUrl('https://127.0.0.1/', local))).toBe('ok');
    expect(codeOf(() => checkUrl('https://[::ffff:127.0.0.1]/', local))).toBe('ok');
    expect(codeOf(() => checkUrl('https://[::ffff:0:127.0.0.1]/', local))).toBe('blocked_address');
  });
});
