/**
 * Standard Webhooks / Svix: `webhook-id`, `webhook-timestamp`, `webhook-signature` (or the `svix-*`
 * twins Svix sends), verified by the runtime's Standard Webhooks implementation. The message id is
 * kept across Svix retries (which are re-signed with a fresh timestamp), so it is the dedupe key.
 */
import type { SignatureScheme } from '../signing/scheme.js';
import { svixWindow } from '../stores/retry-windows.js';
import type { PresetCrypto } from './crypto.js';
import { checkPresetOptions } from './preset-keys.js';
import { guardVerify, headerValue, parseJson, stringField } from './support.js';
import type { PresetSchemeOptions, ProviderDescriptor } from './types.js';

export function svixScheme(options: PresetSchemeOptions, crypto: PresetCrypto): SignatureScheme {
  checkPresetOptions('svix', options);
  const scheme = crypto.standardWebhooks({ ...options, headerPrefix: options.headerPrefix ?? 'svix' });
  return guardVerify({
    name: 'svix',
    sign: (input) => scheme.sign(input),
    verify: (input) => scheme.verify(input),
  });
}

export const svix: ProviderDescriptor<'svix'> = {
  name: 'svix',
  signature: { kind: 'preset', preset: 'svix' },
  // Svix senders choose their own payload shape (Clerk, Resend, …); most carry a `type` field, few
  // the full `{ id, type, timestamp, data }` envelope, so the body is the payload and `type` selects.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'type' },
  match: (event) => ({ body: event }),
  parseBody: (body) => parseJson(body),
  eventId: (headers, _body, verified) =>
    verified?.id ?? headerValue(headers, 'webhook-id') ?? headerValue(headers, 'svix-id'),
  eventType: (_headers, body) => stringField(body, 'type'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: svixWindow,
  declared: {
    idSigned: true,
    timestampSigned: true,
    handshakes: [],
  },
  defaultMode: 'inline',
  handshake: () => undefined,
};
