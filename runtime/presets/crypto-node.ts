/**
 * The presets' crypto on node:crypto: synchronous HMAC (keys held as KeyObjects), Ed25519 and
 * `timingSafeEqual`, plus node:querystring for Twilio's legacy URL spelling. Node entry only.
 */
import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { parse, stringify } from 'node:querystring';
import { ed25519PrivateKey, ed25519PublicKey, ed25519Sign, ed25519Verify } from '../signing/ed25519.js';
import { standardWebhooks } from '../signing/standard-webhooks.js';
import type { PresetCrypto } from './crypto.js';

export const nodePresetCrypto: PresetCrypto = {
  hmac(algorithm, key) {
    const secret = createSecretKey(key);
    return (...parts) => {
      const mac = createHmac(algorithm, secret);
      for (const part of parts) mac.update(part);
      return mac.digest();
    };
  },
  ed25519Verifier(publicKey) {
    const key = ed25519PublicKey(publicKey);
    return (signature, ...parts) => ed25519Verify(key, signature, ...parts);
  },
  ed25519Signer(seed) {
    const key = ed25519PrivateKey(seed);
    return (...parts) => ed25519Sign(key, ...parts);
  },
  equal: (a, b) => a.length === b.length && timingSafeEqual(a, b),
  standardWebhooks,
  legacyQuery: (query) => stringify(parse(query)),
};
