/**
 * Discord interactions and webhook events: `X-Signature-Ed25519` = hex Ed25519 signature of
 * `${X-Signature-Timestamp}${rawBody}` under the application's public key (hex, from the developer
 * portal). Discord probes endpoints with bad signatures and requires a 401, so every verification
 * failure of this preset answers 401 (the error code still says what was wrong). PING is answered by
 * `handshake`: `{"type":1}` for interactions, an empty 204 for webhook events.
 *
 * The `Contract` parts describe webhook events (`{ version, application_id, type: 1, event: { type,
 * timestamp, data } }`, selected by `event.type`, e.g. `APPLICATION_AUTHORIZED`): their answer is an
 * acknowledgement, so a receiver can dispatch them. An interaction's answer is its response message,
 * so interactions are handled with the scheme and descriptor directly (see docs/presets.md).
 */
import type { KeyObject } from 'node:crypto';
import { toBytes } from '../bytes.js';
import { WebhookError } from '../errors.js';
import { ed25519PrivateKey, ed25519PublicKey, ed25519Sign, ed25519Verify } from '../signing/ed25519.js';
import { decodeHex, encodeHex } from '../signing/encoding.js';
import type { Secret, SignatureScheme, VerifiedDelivery, VerifyInput } from '../signing/scheme.js';
import { secretList } from '../signing/standard-webhooks-core.js';
import { RETRY_WINDOWS } from '../stores/retry-windows.js';
import { checkTimestamp, checkTolerance, parseUnixSeconds } from '../timestamp.js';
import {
  field,
  guardVerify,
  invalidSignature,
  jsonResponse,
  malformed,
  parseJson,
  requireHeader,
  sha256Hex,
  stringField,
} from './support.js';
import type { PresetSchemeOptions, ProviderPreset } from './types.js';

const SIGNATURE_HEADER = 'X-Signature-Ed25519';
const TIMESTAMP_HEADER = 'X-Signature-Timestamp';
const UNAUTHORIZED = 401;

/** Interaction types by number (https://discord.com/developers/docs/interactions/receiving-and-responding). */
export const DISCORD_INTERACTION_TYPES = {
  ping: 1,
  application_command: 2,
  message_component: 3,
  application_command_autocomplete: 4,
  modal_submit: 5,
} as const;

const TYPE_NAMES = new Map<number, string>(
  Object.entries(DISCORD_INTERACTION_TYPES).map(([name, type]) => [type, name]),
);

function keyBytes(key: Secret, what: string): Uint8Array {
  const bytes = typeof key === 'string' ? decodeHex(key.trim()) : key instanceof Uint8Array ? key : undefined;
  if (bytes === undefined || bytes.length !== 32) {
    throw new WebhookError('invalid_key', `discord: the ${what} must be 32 bytes (64 hex characters)`);
  }
  return bytes;
}

function verifyInteraction(
  keys: readonly KeyObject[],
  input: VerifyInput,
  options: PresetSchemeOptions,
): VerifiedDelivery {
  const value = requireHeader(input.headers, SIGNATURE_HEADER, UNAUTHORIZED);
  const text = requireHeader(input.headers, TIMESTAMP_HEADER, UNAUTHORIZED);
  // Either hex case, as discord-interactions decodes it: Ed25519 checks the bytes, and no dedupe key is
  // ever derived from this header (interaction id or body hash), so a re-cased copy is the same event.
  const signature = decodeHex(value);
  if (signature === undefined || signature.length !== 64) {
    throw malformed(SIGNATURE_HEADER, 'must be a hex Ed25519 signature', UNAUTHORIZED);
  }
  const timestamp = parseUnixSeconds(text, TIMESTAMP_HEADER);
  checkTimestamp(timestamp, { tolerance: options.tolerance, now: options.now }, TIMESTAMP_HEADER);
  const body = toBytes(input.body);
  if (!keys.some((key) => ed25519Verify(key, signature, text, body))) {
    throw invalidSignature(SIGNATURE_HEADER, UNAUTHORIZED);
  }
  return { timestamp };
}

export function discordScheme(options: PresetSchemeOptions): SignatureScheme {
  const keys = secretList(options.secret).map((key) => ed25519PublicKey(keyBytes(key, 'public key')));
  checkTolerance(options.tolerance);
  const privateKey =
    options.signingKey === undefined
      ? undefined
      : ed25519PrivateKey(keyBytes(options.signingKey, 'signingKey'));
  return guardVerify({
    name: 'discord',
    sign(input) {
      if (privateKey === undefined) {
        throw new WebhookError(
          'invalid_config',
          'discord: signing needs the signingKey option (Ed25519 seed)',
        );
      }
      const timestamp = String(input.timestamp);
      const signature = ed25519Sign(privateKey, timestamp, toBytes(input.body));
      return { [SIGNATURE_HEADER]: encodeHex(signature), [TIMESTAMP_HEADER]: timestamp };
    },
    verify(input) {
      try {
        return verifyInteraction(keys, input, options);
      } catch (error) {
        // Discord's endpoint check expects 401 for any request that fails verification.
        if (error instanceof WebhookError && error.status === 400) {
          throw new WebhookError(error.code, error.message, { status: UNAUTHORIZED, details: error.details });
        }
        throw error;
      }
    },
  });
}

export const discord: ProviderPreset<'discord'> = {
  name: 'discord',
  scheme: discordScheme,
  signature: { kind: 'preset', preset: 'discord' },
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'event.type' },
  match: (event) => (/^[A-Z][A-Z0-9_]*$/.test(event) ? { body: event } : undefined),
  parseBody: (body) => parseJson(body),
  eventId(_headers, body) {
    // Interactions have a snowflake id; webhook events have none, and a retry repeats the same body
    // (its `event.timestamp` included), so the body's hash identifies the event.
    return stringField(body, 'id') ?? `discord-event:${sha256Hex(JSON.stringify(body) ?? '')}`;
  },
  eventType(_headers, body) {
    // Webhook events carry `event.type` (e.g. APPLICATION_AUTHORIZED); their PING is type 0.
    const eventType = stringField(body, 'event.type');
    if (eventType !== undefined) return eventType;
    const type = field(body, 'type');
    if (type === 0) return 'ping';
    return typeof type === 'number' ? TYPE_NAMES.get(type) : undefined;
  },
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: RETRY_WINDOWS.discord,
  declared: {
    idSigned: true,
    timestampSigned: true,
    handshakes: ['PING'],
  },
  // Webhook events must be acknowledged within 3 seconds (interactions never reach a receiver).
  defaultMode: 'ack-fast',
  acknowledgement: { status: 204, headers: {}, body: '' },
  handshake(_headers, body) {
    const type = field(body, 'type');
    if (type === DISCORD_INTERACTION_TYPES.ping && field(body, 'event') === undefined) {
      return jsonResponse(200, { type: 1 });
    }
    if (type === 0 && field(body, 'event') === undefined) return { status: 204, headers: {}, body: '' };
    return undefined;
  },
};
