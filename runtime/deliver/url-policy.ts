/**
 * Which endpoint URLs the sender may call, and the one address it connects to. HTTPS only unless the
 * host is explicitly allowed plain HTTP; the host is resolved once, every resolved address must be
 * public (or allow-listed), and the connection is then pinned to the checked address so a second DNS
 * answer (rebinding) can never redirect the request to an internal service.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { WebhookError } from '../errors.js';
import {
  type Cidr,
  classifyAddress,
  formatAddress,
  isAllowListed,
  type ParsedAddress,
  parseAddress,
  parseCidr,
} from './address.js';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to all its addresses (injectable; the default uses the OS resolver). */
export type LookupFunction = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface UrlPolicy {
  /** Hosts that may be called over plain `http:` (e.g. `['localhost', '127.0.0.1']` in development). */
  readonly allowHttpHosts?: readonly string[];
  /**
   * Addresses or CIDR blocks that may be called although they are loopback/private/link-local/…
   * (e.g. `['127.0.0.1']` for a local receiver, `['10.1.0.0/16']` for an internal network).
   */
  readonly allowAddresses?: readonly string[];
  /** Host name resolution; default `dns.promises.lookup(host, { all: true })`. */
  readonly lookup?: LookupFunction;
  /**
   * URL schemes of your own `Destination`s accepted besides http(s), `amqp:`, `amqps:` and `nats:`
   * (docs/destinations.md), e.g. `['sqs:']`. Their host passes the same address rules.
   */
  readonly destinationSchemes?: readonly string[];
}

export interface CompiledUrlPolicy {
  readonly allowHttpHosts: ReadonlySet<string>;
  readonly allowAddresses: readonly Cidr[];
  readonly lookup: LookupFunction;
  /** Non-HTTP schemes accepted (broker destinations), with the colon. */
  readonly destinationSchemes: ReadonlySet<string>;
}

/** Broker schemes without TLS: like `http:`, only for hosts in `allowHttpHosts`. */
const PLAINTEXT_DESTINATIONS = new Set(['amqp:', 'nats:']);
const BUILT_IN_DESTINATIONS = ['amqp:', 'amqps:', 'nats:'];

export const defaultLookup: LookupFunction = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export function compileUrlPolicy(policy: UrlPolicy = {}): CompiledUrlPolicy {
  const allowAddresses = (policy.allowAddresses ?? []).map((text) => {
    const block = parseCidr(text);
    if (!block) {
      throw new WebhookError(
        'invalid_config',
        `allowAddresses: "${text}" is not an IP address or CIDR block`,
      );
    }
    return block;
  });
  return {
    allowHttpHosts: new Set((policy.allowHttpHosts ?? []).map(normaliseHost)),
    allowAddresses,
    lookup: policy.lookup ?? defaultLookup,
    destinationSchemes: new Set([
      ...BUILT_IN_DESTINATIONS,
      ...(policy.destinationSchemes ?? []).map((s) => (s.endsWith(':') ? s : `${s}:`).toLowerCase()),
    ]),
  };
}

function normaliseHost(host: string): string {
  const lower = host.toLowerCase();
  const bare = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  const ip = parseAddress(bare);
  return ip ? formatAddress(ip) : bare.replace(/\.$/, '');
}

/**
 * Checks the URL's form (no DNS): absolute http(s), HTTPS unless allowed, no credentials, no
 * fragment-only tricks, and IP literals must pass the address rules. Returns the parsed URL.
 */
export function checkUrl(input: string, policy: CompiledUrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new WebhookError('invalid_url', `"${truncate(input)}" is not an absolute URL`, {
      details: { url: truncate(input) },
    });
  }
  const destination = policy.destinationSchemes?.has(url.protocol) === true;
  if (url.protocol !== 'https:' && url.protocol !== 'http:' && !destination) {
    throw new WebhookError('invalid_url', `Webhook URLs must use https: (got ${url.protocol})`, {
      details: { url: redact(url) },
    });
  }
  // A broker destination's userinfo is its credentials (stored like a secret, never shown back).
  if (!destination && (url.username !== '' || url.password !== '')) {
    throw new WebhookError('invalid_url', 'Webhook URLs must not contain credentials', {
      details: { url: redact(url) },
    });
  }
  const host = normaliseHost(url.hostname);
  if (host === '')
    throw new WebhookError('invalid_url', 'Webhook URL has no host', { details: { url: redact(url) } });
  if (
    (url.protocol === 'http:' || PLAINTEXT_DESTINATIONS.has(url.protocol)) &&
    !policy.allowHttpHosts.has(host)
  ) {
    throw new WebhookError(
      'insecure_url',
      `Plain ${url.protocol} is refused for "${host}"; use ${url.protocol === 'http:' ? 'https:' : 'TLS'} or add the host to allowHttpHosts`,
      { details: { url: redact(url), host } },
    );
  }
  const literal = parseAddress(host);
  if (literal) checkAddress(literal, host, policy);
  return url;
}

/**
 * Throws `blocked_address` unless the address is public or allow-listed. For a host name the error
 * the caller sees names the host only: what internal DNS answered (or its class) would map the
 * operator's network one registration at a time. The address is kept in the `cause`, for logs.
 */
export function checkAddress(addr: ParsedAddress, host: string, policy: CompiledUrlPolicy): void {
  const cls = classifyAddress(addr);
  if (cls === undefined || isAllowListed(addr, policy.allowAddresses)) return;
  const address = formatAddress(addr);
  const details = { host, address, reason: cls };
  // A literal IP is the caller's own text: naming it (and its class) tells them nothing new.
  if (host === address) throw notPublic(host, { details });
  throw notPublic(host, {
    cause: new WebhookError('blocked_address', `${host} resolved to ${address}: ${cls} address`, { details }),
  });
}

/**
 * The one caller-visible answer to a host that may not be called, whatever the reason (an internal
 * address, or at registration a name that does not resolve): `Refusing to call <host>: not a public
 * address`, details `{ host }` unless the caller wrote the address. Operator detail goes in `cause`.
 */
export function notPublic(
  host: string,
  options: { details?: Record<string, unknown>; cause?: unknown } = {},
): WebhookError {
  return new WebhookError('blocked_address', `Refusing to call ${host}: not a public address`, {
    details: options.details ?? { host },
    ...(options.cause !== undefined ? { cause: options.cause } : {}),
  });
}

export interface ResolvedTarget {
  readonly url: URL;
  /** Host name as written (lower case, no brackets), for the Host header and TLS SNI. */
  readonly host: string;
  /** The checked address the request must connect to. */
  readonly address: string;
  readonly family: 4 | 6;
}

/**
 * Checks the URL and resolves its host. Every address the resolver returns must pass (a name that
 * resolves to both a public and an internal address is refused), and the first one is returned.
 */
export async function resolveTarget(input: string | URL, policy: CompiledUrlPolicy): Promise<ResolvedTarget> {
  const url = checkUrl(typeof input === 'string' ? input : input.href, policy);
  const host = normaliseHost(url.hostname);
  const literal = parseAddress(host);
  if (literal) return { url, host, address: formatAddress(literal), family: literal.family };
  let found: readonly ResolvedAddress[];
  try {
    found = await policy.lookup(host);
  } catch (error) {
    throw new WebhookError('dns_failure', `Could not resolve "${host}"`, { details: { host }, cause: error });
  }
  const parsed: ParsedAddress[] = [];
  for (const entry of found) {
    const addr = parseAddress(entry.address);
    if (!addr) {
      throw new WebhookError('dns_failure', `Resolver returned a malformed address for "${host}"`, {
        details: { host },
      });
    }
    checkAddress(addr, host, policy);
    parsed.push(addr);
  }
  const first = parsed[0];
  if (!first) throw new WebhookError('dns_failure', `"${host}" has no addresses`, { details: { host } });
  return { url, host, address: formatAddress(first), family: first.family };
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function redact(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}
