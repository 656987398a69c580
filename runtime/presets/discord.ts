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
import { toBytes } from '../bytes.js';
import { WebhookError } from '../errors.js';
import { decodeHex, encodeHex } from '../signing/encoding.js';
import type { Secret, SignatureScheme, VerifiedDelivery, VerifyInput } from '../signing/scheme.js';
import { secretList } from '../signing/standard-webhooks-core.js';
import { discordWindow } from '../stores/retry-windows.js';
import { checkTimestamp, checkTolerance, parseUnixSeconds } from '../timestamp.js';
import { type MaybePromise, type PresetCrypto, settle, settleAll } from './crypto.js';
import { checkPresetOptions } from './preset-keys.js';
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
import type { PresetSchemeOptions, ProviderDescriptor } from './types.js';

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

type Verifier = ReturnType<PresetCrypto['ed25519Verifier']>;

function verifyInteraction(
  keys: readonly Verifier[],
  input: VerifyInput,
  options: PresetSchemeOptions,
): MaybePromise<VerifiedDelivery> {
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
  return settleAll(
    keys.map((verify) => verify(signature, text, body)),
    (results) => {
      if (!results.includes(true)) throw invalidSignature(SIGNATURE_HEADER, UNAUTHORIZED);
      return { timestamp };
    },
  );
}

/** Discord's endpoint check expects 401 for any request that fails verification. */
function unauthorized(error: unknown): never {
  if (error instanceof WebhookError && error.status === 400) {
    throw new WebhookError(error.code, error.message, { status: UNAUTHORIZED, details: error.details });
  }
  throw error;
}

export function discordScheme(options: PresetSchemeOptions, crypto: PresetCrypto): SignatureScheme {
  checkPresetOptions('discord', options);
  const keys = secretList(options.secret).map((key) => crypto.ed25519Verifier(keyBytes(key, 'public key')));
  checkTolerance(options.tolerance);
  const signer =
    options.signingKey === undefined
      ? undefined
      : crypto.ed25519Signer(keyBytes(options.signingKey, 'signingKey'));
  return guardVerify({
    name: 'discord',
    sign(input) {
      if (signer === undefined) {
        throw new WebhookError(
          'invalid_config',
          'discord: signing needs the signingKey option (Ed25519 seed)',
        );
      }
      const timestamp = String(input.timestamp);
      return settle(signer(timestamp, toBytes(input.body)), (signature) => ({
        [SIGNATURE_HEADER]: encodeHex(signature),
        [TIMESTAMP_HEADER]: timestamp,
      }));
    },
    verify(input) {
      let verified: MaybePromise<VerifiedDelivery>;
      try {
        verified = verifyInteraction(keys, input, options);
      } catch (error) {
        return unauthorized(error);
      }
      return verified instanceof Promise ? verified.catch(unauthorized) : verified;
    },
  });
}

export const discord: ProviderDescriptor<'discord'> = {
  name: 'discord',
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
  dedupeTtlMs: discordWindow,
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
