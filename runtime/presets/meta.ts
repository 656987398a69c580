/**
 * Meta webhooks: WhatsApp Cloud API, Messenger, Instagram (https://developers.facebook.com/docs/graph-api/webhooks/getting-started).
 * `X-Hub-Signature-256: sha256=<hex>` = HMAC-SHA256 of the raw body with the App Secret. Nothing dates
 * a delivery and the body has no delivery id; a retry repeats the body, so the key is its SHA-256.
 * The endpoint check is an unsigned `GET ?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`,
 * answered by `preflight` with the challenge when the token equals `preset.verifyToken` (403 otherwise).
 */
import { WebhookError } from '../errors.js';
import { encodeHex } from '../signing/encoding.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { metaWindow } from '../stores/retry-windows.js';
import { checkPresetOptions } from './preset-keys.js';
import { invalidSignature, malformed, parseJson, requireHeader, stringField } from './support.js';
import type { PresetSchemeOptions, ProviderPreset } from './types.js';
import { equalText, hmacKeys } from './web-crypto.js';
import { bodyKey, guardAsync, guardPreflight, prefixedHex, queryParam, textResponse } from './web-support.js';

const HEADER = 'X-Hub-Signature-256';
const PREFIX = 'sha256=';

export function metaScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('meta', options);
  const keys = hmacKeys(options.secret, 'SHA-256');
  return guardAsync({
    name: 'meta',
    async sign(input) {
      return { [HEADER]: `${PREFIX}${encodeHex(await keys.sign(input.body))}` };
    },
    async verify(input) {
      const given = prefixedHex(requireHeader(input.headers, HEADER), PREFIX, 32);
      if (given === undefined) throw malformed(HEADER, 'must be sha256=<lower-case hex>');
      if (!(await keys.matches([given], input.body))) throw invalidSignature(HEADER);
      return { id: await bodyKey('meta', input.body) };
    },
  });
}

export const meta: ProviderPreset<'meta'> = {
  name: 'meta',
  scheme: metaScheme,
  signature: { kind: 'preset', preset: 'meta' },
  // `{ object: 'whatsapp_business_account' | 'page' | 'instagram', entry: [ { id, changes | messaging } ] }`:
  // one delivery may batch several entries and changes of one object kind.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'object' },
  match: (event) => ({ body: event }),
  parseBody: (body) => parseJson(body),
  eventId: (_headers, _body, verified) => verified?.id,
  eventType: (_headers, body) => stringField(body, 'object'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: metaWindow,
  declared: {
    idSigned: true,
    timestampSigned: false,
    handshakes: ['hub.challenge'],
    residualRisk:
      'Nothing is dated: a captured delivery is a duplicate while its body hash is remembered (8 days) and runs again after that.',
  },
  defaultMode: 'inline',
  handshake: () => undefined,
  preflight: guardPreflight((request, options) => {
    if (request.method !== undefined && request.method.toUpperCase() !== 'GET') return undefined;
    const mode = queryParam(request.url, 'hub.mode');
    if (mode === undefined) return undefined;
    const token = queryParam(request.url, 'hub.verify_token') ?? '';
    const challenge = queryParam(request.url, 'hub.challenge') ?? '';
    if (options.verifyToken === undefined || options.verifyToken === '') {
      throw new WebhookError('invalid_config', 'meta: the hub.verify_token check needs preset.verifyToken');
    }
    if (mode !== 'subscribe' || !equalText(token, options.verifyToken)) {
      throw new WebhookError('invalid_signature', 'hub.verify_token does not match the Verify Token', {
        status: 403,
        details: { pointer: 'hub.verify_token' },
      });
    }
    return textResponse(200, challenge);
  }),
};
