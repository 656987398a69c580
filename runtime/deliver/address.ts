/**
 * IP address parsing and classification for the SSRF guard. Pure functions over bytes so they run in
 * any runtime and are easy to property-test. IPv6 addresses that embed an IPv4 address (mapped,
 * translated, compatible, NAT64, 6to4) are classified by the embedded address, so `::ffff:127.0.0.1` is
 * loopback; IPv4-translated ones (`::ffff:0:a.b.c.d`) are refused even when the embedded one is public.
 */

/** Why an address is refused; `undefined` from `classifyAddress` means a public unicast address. */
export type AddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'metadata'
  | 'reserved';

export interface ParsedAddress {
  readonly family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  readonly bytes: Uint8Array;
}

/** Parses dotted-quad IPv4 (strict: four decimal parts, no leading zeros) or IPv6 text (zone ids refused). */
export function parseAddress(text: string): ParsedAddress | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (bare.includes(':')) {
    const bytes = parseIPv6(bare);
    return bytes ? { family: 6, bytes } : undefined;
  }
  const bytes = parseIPv4(bare);
  return bytes ? { family: 4, bytes } : undefined;
}

function parseIPv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i] ?? '';
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

function parseIPv6(text: string): Uint8Array | undefined {
  if (text.includes('%')) return undefined;
  let head = text;
  let tailV4: Uint8Array | undefined;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tailV4 = parseIPv4(text.slice(lastColon + 1));
    if (!tailV4) return undefined;
    // Keep the trailing colon so "::1.2.3.4" still splits into an empty group before the address.
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const parseGroups = (s: string): number[] | undefined => {
    if (s === '') return [];
    const groups: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      groups.push(Number.parseInt(g, 16));
    }
    return groups;
  };
  const left = parseGroups(halves[0] ?? '');
  const right = halves.length === 2 ? parseGroups(halves[1] ?? '') : [];
  if (!left || !right) return undefined;
  let groups: number[];
  if (halves.length === 2) {
    const missing = 8 - left.length - right.length;
    if (missing < 1) return undefined;
    groups = [...left, ...new Array<number>(missing).fill(0), ...right];
  } else {
    groups = left;
  }
  if (groups.length !== 8) return undefined;
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[i * 2] = g >> 8;
    out[i * 2 + 1] = g & 0xff;
  });
  if (tailV4) out.set(tailV4, 12);
  return out;
}

/** Canonical text: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run compressed). */
export function formatAddress(addr: ParsedAddress): string {
  if (addr.family === 4) return Array.from(addr.bytes).join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((addr.bytes[i] ?? 0) << 8) | (addr.bytes[i + 1] ?? 0));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i > 1) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** A CIDR block such as `10.0.0.0/8` or `fd00::/8`; a bare address is a /32 or /128. */
export interface Cidr {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  readonly prefix: number;
}

export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  const addr = parseAddress(slash < 0 ? text : text.slice(0, slash));
  if (!addr) return undefined;
  const max = addr.family === 4 ? 32 : 128;
  if (slash < 0) return { ...addr, prefix: max };
  const p = text.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(p) || Number(p) > max) return undefined;
  return { ...addr, prefix: Number(p) };
}

export function cidrContains(cidr: Cidr, addr: ParsedAddress): boolean {
  if (cidr.family !== addr.family) return false;
  const full = Math.floor(cidr.prefix / 8);
  for (let i = 0; i < full; i++) if (cidr.bytes[i] !== addr.bytes[i]) return false;
  const rest = cidr.prefix % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((cidr.bytes[full] ?? 0) & mask) === ((addr.bytes[full] ?? 0) & mask);
}

const cidr = (text: string): Cidr => {
  const parsed = parseCidr(text);
  if (!parsed) throw new Error(`bad built-in CIDR ${text}`);
  return parsed;
};

// Order matters: the first matching (most specific) entry names the class.
const V4_RULES: ReadonlyArray<readonly [Cidr, AddressClass]> = [
  [cidr('169.254.169.254/32'), 'metadata'],
  [cidr('0.0.0.0/8'), 'unspecified'],
  [cidr('10.0.0.0/8'), 'private'],
  [cidr('100.64.0.0/10'), 'cgnat'],
  [cidr('127.0.0.0/8'), 'loopback'],
  [cidr('169.254.0.0/16'), 'link-local'],
  [cidr('172.16.0.0/12'), 'private'],
  [cidr('192.0.0.0/24'), 'reserved'],
  [cidr('192.0.2.0/24'), 'reserved'],
  [cidr('192.88.99.0/24'), 'reserved'],
  [cidr('192.168.0.0/16'), 'private'],
  [cidr('198.18.0.0/15'), 'reserved'],
  [cidr('198.51.100.0/24'), 'reserved'],
  [cidr('203.0.113.0/24'), 'reserved'],
  [cidr('224.0.0.0/4'), 'multicast'],
  [cidr('255.255.255.255/32'), 'broadcast'],
  [cidr('240.0.0.0/4'), 'reserved'],
];

const V6_RULES: ReadonlyArray<readonly [Cidr, AddressClass]> = [
  [cidr('::/128'), 'unspecified'],
  [cidr('::1/128'), 'loopback'],
  [cidr('fd00:ec2::254/128'), 'metadata'],
  [cidr('64:ff9b:1::/48'), 'private'],
  [cidr('100::/64'), 'reserved'],
  [cidr('2001::/32'), 'reserved'], // Teredo: tunnels to an obfuscated IPv4 address.
  [cidr('2001:db8::/32'), 'reserved'],
  [cidr('fc00::/7'), 'private'],
  [cidr('fe80::/10'), 'link-local'],
  [cidr('fec0::/10'), 'private'],
  [cidr('ff00::/8'), 'multicast'],
  // The rest of ::/8 is reserved by the IETF: only the IPv4 embeddings mean anything there.
  [cidr('::/8'), 'reserved'],
];

const zerosIn = (b: Uint8Array, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);

/** IPv4-translated (SIIT, RFC 2765): `::ffff:0:a.b.c.d`, i.e. `::ffff:0:0:0/96`. */
function isTranslated(addr: ParsedAddress): boolean {
  const b = addr.bytes;
  return addr.family === 6 && zerosIn(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zerosIn(b, 10, 12);
}

/**
 * The IPv4 address an IPv6 address stands for, when it is IPv4-mapped (`::ffff:0:0/96`),
 * IPv4-translated (`::ffff:0:0:0/96`), IPv4-compatible (`::/96`), NAT64 (`64:ff9b::/96`) or 6to4
 * (`2002::/16`).
 */
export function embeddedIPv4(addr: ParsedAddress): ParsedAddress | undefined {
  if (addr.family !== 6) return undefined;
  const b = addr.bytes;
  const zeros = (from: number, to: number) => zerosIn(b, from, to);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return { family: 4, bytes: b.slice(12, 16) };
  if (isTranslated(addr)) return { family: 4, bytes: b.slice(12, 16) };
  if (zeros(0, 12) && !zeros(12, 16)) {
    // ::/96 compatible form; :: and ::1 themselves are handled by the IPv6 rules.
    if (!(zeros(12, 15) && (b[15] === 0 || b[15] === 1))) return { family: 4, bytes: b.slice(12, 16) };
  }
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) {
    return { family: 4, bytes: b.slice(12, 16) };
  }
  if (b[0] === 0x20 && b[1] === 0x02) return { family: 4, bytes: b.slice(2, 6) };
  return undefined;
}

/** Classifies an address; `undefined` means public unicast (deliverable). */
export function classifyAddress(addr: ParsedAddress): AddressClass | undefined {
  const v4 = addr.family === 4 ? addr : embeddedIPv4(addr);
  if (v4) {
    for (const [block, cls] of V4_RULES) if (cidrContains(block, v4)) return cls;
    // Translated addresses only mean something inside a SIIT translator's domain, never on the Internet.
    return isTranslated(addr) ? 'reserved' : undefined;
  }
  for (const [block, cls] of V6_RULES) if (cidrContains(block, addr)) return cls;
  return undefined;
}

/** True when `addr` (or the IPv4 address it embeds) is inside one of the allow-listed blocks. */
export function isAllowListed(addr: ParsedAddress, allow: readonly Cidr[]): boolean {
  // A translated address is not its IPv4 address on this host (a translator decides where it goes), so
  // only an allow-list entry for the IPv6 address itself admits it.
  const v4 = isTranslated(addr) ? undefined : embeddedIPv4(addr);
  return allow.some((block) => cidrContains(block, addr) || (v4 !== undefined && cidrContains(block, v4)));
}
