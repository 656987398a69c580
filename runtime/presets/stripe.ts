/**
 * Stripe: `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]`, HMAC-SHA256 over `${t}.${rawBody}` keyed
 * with the endpoint secret string itself (`whsec_…`, not decoded). Several `v1` entries appear while a
 * secret is being rolled; `v0` (test-mode legacy) and unknown schemes are ignored, as Stripe's SDK does.
 */
import { decodeCanonicalHex, encodeHex } from '../signing/encoding.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { stripeWindow } from '../stores/retry-windows.js';
import { checkTimestamp, parseUnixSeconds } from '../timestamp.js';
import { anyKeyMatches, macsFor, type PresetCrypto, settle, settleAll } from './crypto.js';
import { checkPresetOptions } from './preset-keys.js';
import {
  bodyInput,
  guardVerify,
  invalidSignature,
  malformed,
  parseJson,
  requireHeader,
  secretKeys,
  sha256Hex,
  stringField,
} from './support.js';
import type { PresetSchemeOptions, ProviderDescriptor } from './types.js';

const HEADER = 'Stripe-Signature';

interface ParsedHeader {
  readonly timestamp: number;
  readonly signatures: Uint8Array[];
}

function parseHeader(value: string): ParsedHeader {
  let timestamp: string | undefined;
  let sawV1 = false;
  const signatures: Uint8Array[] = [];
  for (const item of value.split(',')) {
    const eq = item.indexOf('=');
    if (eq <= 0) continue;
    const key = item.slice(0, eq).trim();
    const text = item.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined) throw malformed(HEADER, 'has more than one timestamp');
      timestamp = text;
    } else if (key === 'v1') {
      sawV1 = true;
      // A v1 entry that is not lower-case hex cannot match (stripe-node compares the hex text); keep
      // looking at the others.
      const bytes = decodeCanonicalHex(text);
      if (bytes !== undefined && bytes.length === 32) signatures.push(bytes);
    }
  }
  if (timestamp === undefined) throw malformed(HEADER, 'has no t= timestamp');
  if (!sawV1) throw malformed(HEADER, 'has no v1= signature');
  return { timestamp: parseUnixSeconds(timestamp, HEADER), signatures };
}

export function stripeScheme(options: PresetSchemeOptions, crypto: PresetCrypto): SignatureScheme {
  checkPresetOptions('stripe', options);
  const macs = macsFor(crypto, 'sha256', secretKeys(options.secret));
  return guardVerify({
    name: 'stripe',
    sign(input) {
      const body = bodyInput(input.body);
      const prefix = `${input.timestamp}.`;
      return settleAll(
        macs.map((mac) => mac(prefix, body)),
        (digests) => ({
          [HEADER]: [`t=${input.timestamp}`, ...digests.map((d) => `v1=${encodeHex(d)}`)].join(','),
        }),
      );
    },
    verify(input) {
      const parsed = parseHeader(requireHeader(input.headers, HEADER));
      checkTimestamp(parsed.timestamp, { tolerance: options.tolerance, now: options.now }, HEADER);
      const body = bodyInput(input.body);
      return settle(
        anyKeyMatches(crypto, macs, parsed.signatures, `${parsed.timestamp}.`, body),
        (matched) => {
          if (!matched) throw invalidSignature(HEADER);
          return { timestamp: parsed.timestamp };
        },
      );
    },
  });
}

export const stripe: ProviderDescriptor<'stripe'> = {
  name: 'stripe',
  signature: { kind: 'preset', preset: 'stripe' },
  // The body is the Stripe event itself (its `created` is Unix seconds, not an ISO envelope timestamp).
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'type' },
  match: (event) => ({ body: event }),
  parseBody: (body) => parseJson(body),
  eventId(_headers, body) {
    // `evt_…` is the same on every retry and on manual resends. Without one, the signed body itself is
    // the key (retries are re-signed with a new `t`, so no part of the header is stable, nor canonical).
    return stringField(body, 'id') ?? `stripe-event:${sha256Hex(JSON.stringify(body) ?? '')}`;
  },
  eventType: (_headers, body) => stringField(body, 'type'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: stripeWindow,
  declared: {
    idSigned: true,
    timestampSigned: true,
    handshakes: [],
  },
  defaultMode: 'inline',
  handshake: () => undefined,
};
