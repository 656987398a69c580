import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAddress, embeddedIPv4, formatAddress, parseAddress, parseCidr } from './address.js';

const cls = (text: string) => {
  const addr = parseAddress(text);
  if (!addr) throw new Error(`unparsable ${text}`);
  return classifyAddress(addr);
};

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', undefined],
    ['1.1.1.1', undefined],
    ['93.184.216.34', undefined],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', undefined],
    ['192.168.1.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.1', undefined],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001:4860:4860::8888', undefined],
    ['2606:4700:4700::1111', undefined],
    // IPv4 inside IPv6: classified by the embedded address.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', undefined],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::8.8.8.8', undefined],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:169.254.169.254', 'metadata'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['::ffff:0:8.8.8.8', 'reserved'],
    ['0:0:0:0:ffff:0:0a00:1', 'private'],
    ['::10.0.0.1', 'private'],
    ['::8.8.8.8', undefined],
    ['64:ff9b::169.254.169.254', 'metadata'],
    ['64:ff9b::192.168.0.1', 'private'],
    ['64:ff9b:1::8.8.8.8', 'private'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:0a00:0001::', 'private'],
    ['2002:0808:0808::1', undefined],
    ['::ffff:1:10.0.0.1', 'reserved'],
    ['::1:0:0:1', 'reserved'],
  ])('%s → %s', (text, expected) => {
    expect(cls(text)).toBe(expected);
  });

  it('refuses malformed text', () => {
    for (const bad of [
      '',
      '1.2.3',
      '1.2.3.4.5',
      '01.2.3.4',
      '256.1.1.1',
      '1::2::3',
      'fe80::1%eth0',
      'g::1',
      '1:2:3:4:5:6:7:8:9',
    ]) {
      expect(parseAddress(bad), bad).toBeUndefined();
    }
  });

  it('round-trips canonical text (property)', () => {
    const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
    const v6 = fc
      .array(fc.nat(0xffff), { minLength: 8, maxLength: 8 })
      .map((g) => g.map((x) => x.toString(16)).join(':'));
    fc.assert(
      fc.property(fc.oneof(v4, v6), (text) => {
        const parsed = parseAddress(text);
        expect(parsed).toBeDefined();
        const again = parseAddress(formatAddress(parsed!));
        expect(again!.bytes).toEqual(parsed!.bytes);
      }),
    );
  });

  it('an IPv4-mapped IPv6 address is classified like its IPv4 address (property)', () => {
    fc.assert(
      fc.property(fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)), (p) => {
        const v4 = p.join('.');
        expect(cls(`::ffff:${v4}`)).toBe(cls(v4));
        const hex = `${((p[0] << 8) | p[1]).toString(16)}:${((p[2] << 8) | p[3]).toString(16)}`;
        expect(cls(`::ffff:${hex}`)).toBe(cls(v4));
      }),
    );
  });

  it('parses CIDR blocks and extracts embedded IPv4', () => {
    expect(parseCidr('10.0.0.0/8')).toMatchObject({ family: 4, prefix: 8 });
    expect(parseCidr('fd00::/8')).toMatchObject({ family: 6, prefix: 8 });
    expect(parseCidr('10.0.0.0/33')).toBeUndefined();
    expect(formatAddress(embeddedIPv4(parseAddress('::ffff:1.2.3.4')!)!)).toBe('1.2.3.4');
    expect(embeddedIPv4(parseAddress('2001:4860::1')!)).toBeUndefined();
  });
});
