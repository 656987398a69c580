/**
 * The presets' crypto on Web Crypto (`crypto.subtle`): asynchronous HMAC and Ed25519, keys imported
 * once on first use. Imports no `node:*` module. No `legacyQuery`: the Twilio preset needs Node.
 */
import { WebhookError } from '../errors.js';
import { constantTimeEqual } from '../signing/encoding.js';
import { standardWebhooksWeb } from '../signing/standard-webhooks-web.js';
import {
  importEd25519,
  importEd25519Public,
  importHmacKey,
  joinParts,
  lazy,
  macWith,
  subtle,
  view,
} from '../signing/web-crypto.js';
import type { PresetCrypto } from './crypto.js';

function rawKey(bytes: Uint8Array, what: string): Uint8Array {
  if (bytes.length !== 32) throw new WebhookError('invalid_key', `Ed25519 ${what} must be 32 bytes`);
  return bytes;
}

/** HMAC on Web Crypto, the key imported on first use. */
export const webHmac: PresetCrypto['hmac'] = (algorithm, key) => {
  const cryptoKey = lazy(() => importHmacKey(algorithm, key));
  return async (...parts) => macWith(await cryptoKey(), joinParts(parts));
};

export const webPresetCrypto: PresetCrypto = {
  hmac: webHmac,
  ed25519Verifier(publicKey) {
    const raw = rawKey(publicKey, 'public key');
    const cryptoKey = lazy(() => importEd25519Public(raw));
    return async (signature, ...parts) => {
      if (signature.length !== 64) return false;
      const key = await cryptoKey();
      try {
        return await subtle().verify('Ed25519', key, view(signature), view(joinParts(parts)));
      } catch {
        return false;
      }
    };
  },
  ed25519Signer(seed) {
    const raw = rawKey(seed, 'seed');
    const cryptoKey = lazy(async () => (await importEd25519(raw, undefined)).privateKey);
    return async (...parts) =>
      new Uint8Array(await subtle().sign('Ed25519', await cryptoKey(), view(joinParts(parts))));
  },
  equal: constantTimeEqual,
  standardWebhooks: standardWebhooksWeb,
};
