/**
 * Slack: `X-Slack-Signature: v0=<hex>` = HMAC-SHA256 of `v0:${X-Slack-Request-Timestamp}:${rawBody}`
 * with the app's signing secret; 5-minute window. Slack waits 3 seconds for the HTTP answer and
 * retries (`X-Slack-Retry-Num`, `X-Slack-Retry-Reason`) up to 3 times, so receivers ack first
 * (`defaultMode: 'ack-fast'`) and dedupe on the Events API `event_id`.
 */
import { decodeCanonicalHex, encodeHex } from '../signing/encoding.js';
import type { HeadersInput, RawBody, SignatureScheme } from '../signing/scheme.js';
import { slackWindow } from '../stores/retry-windows.js';
import { checkTimestamp, parseUnixSeconds } from '../timestamp.js';
import { anyKeyMatches, macsFor, type PresetCrypto, settle } from './crypto.js';
import { checkPresetOptions } from './preset-keys.js';
import {
  bodyInput,
  field,
  guardVerify,
  headerValue,
  invalidSignature,
  isFormBody,
  jsonResponse,
  malformed,
  parseForm,
  parseJson,
  requireHeader,
  secretKeys,
  signatureKey,
  stringField,
} from './support.js';
import type { PresetSchemeOptions, ProviderDescriptor } from './types.js';

const SIGNATURE_HEADER = 'X-Slack-Signature';
const TIMESTAMP_HEADER = 'X-Slack-Request-Timestamp';
const PREFIX = 'v0=';

/** The MAC bytes of `v0=<hex>`: lower-case hex only, as Bolt compares the hex text. */
function signatureBytes(value: string): Uint8Array | undefined {
  if (!value.startsWith(PREFIX)) return undefined;
  const bytes = decodeCanonicalHex(value.slice(PREFIX.length));
  return bytes?.length === 32 ? bytes : undefined;
}

export function slackScheme(options: PresetSchemeOptions, crypto: PresetCrypto): SignatureScheme {
  checkPresetOptions('slack', options);
  const macs = macsFor(crypto, 'sha256', secretKeys(options.secret));
  return guardVerify({
    name: 'slack',
    sign(input) {
      return settle(macs[0](`v0:${input.timestamp}:`, bodyInput(input.body)), (mac) => ({
        [SIGNATURE_HEADER]: `v0=${encodeHex(mac)}`,
        [TIMESTAMP_HEADER]: String(input.timestamp),
      }));
    },
    verify(input) {
      const value = requireHeader(input.headers, SIGNATURE_HEADER);
      const timestamp = parseUnixSeconds(requireHeader(input.headers, TIMESTAMP_HEADER), TIMESTAMP_HEADER);
      if (!value.startsWith(PREFIX)) throw malformed(SIGNATURE_HEADER, 'must start with v0=');
      const given = signatureBytes(value);
      if (given === undefined) throw malformed(SIGNATURE_HEADER, 'must be v0=<lower-case hex>');
      checkTimestamp(timestamp, { tolerance: options.tolerance, now: options.now }, TIMESTAMP_HEADER);
      return settle(
        anyKeyMatches(crypto, macs, [given], `v0:${timestamp}:`, bodyInput(input.body)),
        (matched) => {
          if (!matched) throw invalidSignature(SIGNATURE_HEADER);
          return { timestamp };
        },
      );
    },
  });
}

/**
 * Events API and url_verification bodies are JSON; slash commands are form fields; interactivity
 * posts a form with one `payload` field holding JSON, which is unwrapped.
 */
function parseSlackBody(body: RawBody, headers: HeadersInput): unknown {
  if (!isFormBody(headers)) return parseJson(body);
  const form = parseForm(body);
  const payload = form['payload'];
  return typeof payload === 'string' ? parseJson(payload) : form;
}

export const slack: ProviderDescriptor<'slack'> = {
  name: 'slack',
  signature: { kind: 'preset', preset: 'slack' },
  // Events API body: `{ type: 'event_callback', event_id, event_time, event: { type, … } }`.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'event.type' },
  match: (event) => ({ body: event }),
  parseBody: parseSlackBody,
  eventId(headers, body) {
    const id = stringField(body, 'event_id');
    if (id !== undefined) return id;
    // Commands and interactions are not retried by Slack; the signature (timestamp + body) is unique.
    // The key is taken from the MAC bytes, not the header text, so no respelling is a new event.
    const signature = headerValue(headers, SIGNATURE_HEADER);
    const bytes = signature === undefined ? undefined : signatureBytes(signature);
    return bytes === undefined ? undefined : signatureKey('slack-signature', bytes);
  },
  eventType(_headers, body) {
    const inner = stringField(body, 'event.type');
    if (inner !== undefined) return inner;
    return stringField(body, 'type') ?? stringField(body, 'command');
  },
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: slackWindow,
  declared: {
    idSigned: true,
    timestampSigned: true,
    handshakes: ['url_verification'],
  },
  defaultMode: 'ack-fast',
  handshake(_headers, body) {
    // Slack verifies a Request URL by posting `{ type: 'url_verification', challenge }` (signed).
    if (stringField(body, 'type') !== 'url_verification') return undefined;
    const challenge = field(body, 'challenge');
    return typeof challenge === 'string' ? jsonResponse(200, { challenge }) : undefined;
  },
};

/** The retry attempt Slack reports (0 for the first delivery), for logging and metrics. */
export function slackRetryNumber(headers: HeadersInput): number {
  const value = headerValue(headers, 'X-Slack-Retry-Num');
  const parsed = value === undefined ? 0 : Number.parseInt(value, 10);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : 0;
}
