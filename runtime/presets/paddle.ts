/**
 * Paddle Billing (https://developer.paddle.com/webhooks/signature-verification): `Paddle-Signature:
 * ts=<unix>;h1=<hex>` where h1 = HMAC-SHA256 of `${ts}:${rawBody}` with the notification destination's
 * secret key (several `h1` while a secret is rotated). Paddle's guide and SDK allow 5 seconds, so this
 * preset's window is 5 s each way (the SDK bounds only the past: `{ past: 5, future: Infinity }`
 * matches it exactly). Retries are re-signed; the body's `event_id` (`evt_…`) is the key.
 */
import { encodeHex } from '../signing/encoding.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { paddleWindow } from '../stores/retry-windows.js';
import { checkTimestamp, checkTolerance, parseUnixSeconds } from '../timestamp.js';
import { checkPresetOptions } from './preset-keys.js';
import { invalidSignature, malformed, parseJson, requireHeader, stringField } from './support.js';
import type { PresetSchemeOptions, ProviderPreset } from './types.js';
import { hmacKeys } from './web-crypto.js';
import { guardAsync, prefixedHex } from './web-support.js';

const HEADER = 'Paddle-Signature';
/** "…a tolerance of five seconds" (Paddle's SDKs: MAX_VALID_TIME_DIFFERENCE = 5). */
export const PADDLE_TOLERANCE_SECONDS = 5;

function parseHeader(value: string): { timestamp: number; signatures: Uint8Array[] } {
  let ts: string | undefined;
  let sawH1 = false;
  const signatures: Uint8Array[] = [];
  for (const item of value.split(';')) {
    const eq = item.indexOf('=');
    if (eq <= 0) continue;
    const key = item.slice(0, eq).trim();
    const text = item.slice(eq + 1).trim();
    if (key === 'ts') {
      if (ts !== undefined) throw malformed(HEADER, 'has more than one ts');
      ts = text;
    } else if (key === 'h1') {
      sawH1 = true;
      // The SDK compares the hex text: only lower-case hex can match.
      const bytes = prefixedHex(text, '', 32);
      if (bytes !== undefined) signatures.push(bytes);
    }
  }
  if (ts === undefined) throw malformed(HEADER, 'has no ts= timestamp');
  if (!sawH1) throw malformed(HEADER, 'has no h1= signature');
  return { timestamp: parseUnixSeconds(ts, HEADER), signatures };
}

export function paddleScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('paddle', options);
  const keys = hmacKeys(options.secret, 'SHA-256');
  const tolerance = options.tolerance ?? PADDLE_TOLERANCE_SECONDS;
  checkTolerance(tolerance);
  return guardAsync({
    name: 'paddle',
    async sign(input) {
      const mac = await keys.sign(`${input.timestamp}:`, input.body);
      return { [HEADER]: `ts=${input.timestamp};h1=${encodeHex(mac)}` };
    },
    async verify(input) {
      const { timestamp, signatures } = parseHeader(requireHeader(input.headers, HEADER));
      checkTimestamp(timestamp, { tolerance, now: options.now }, HEADER);
      if (!(await keys.matches(signatures, `${timestamp}:`, input.body))) throw invalidSignature(HEADER);
      return { timestamp };
    },
  });
}

export const paddle: ProviderPreset<'paddle'> = {
  name: 'paddle',
  scheme: paddleScheme,
  signature: { kind: 'preset', preset: 'paddle' },
  // `{ event_id: 'evt_…', event_type: 'transaction.completed', occurred_at, notification_id, data }`.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'event_type' },
  match: (event) => ({ body: event }),
  parseBody: (body) => parseJson(body),
  eventId: (_headers, body) => stringField(body, 'event_id'),
  eventType: (_headers, body) => stringField(body, 'event_type'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: paddleWindow,
  declared: {
    idSigned: true,
    timestampSigned: true,
    handshakes: [],
  },
  defaultMode: 'inline',
  handshake: () => undefined,
};
