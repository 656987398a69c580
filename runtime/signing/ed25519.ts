/**
 * Ed25519 on node:crypto, for Standard Webhooks `v1a` signatures (and presets such as Discord).
 *
 * Exports:
 * - `generateEd25519KeyPair()` → `{ secretKey: 'whsk_…', publicKey: 'whpk_…' }` (secret key = base64 of
 *   the 64-byte seed‖public key, libsodium's layout; 32-byte seeds are accepted too)
 * - `ed25519PrivateKey(seed)`, `ed25519PublicKey(raw)` → `Ed25519Key` (a `KeyObject`) from raw 32-byte keys
 * - `ed25519Sign(privateKey, ...parts)`, `ed25519Verify(publicKey, signature, ...parts)` (never throws on
 *   a bad signature; returns `false`)
 * - `rawPublicKey(privateKey)` → the 32 raw public-key bytes
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { WebhookError } from '../errors.js';
import { concatBytes, encodeBase64 } from './encoding.js';
import {
  ED25519_PKCS8_PREFIX as PKCS8_PREFIX,
  ED25519_SPKI_PREFIX as SPKI_PREFIX,
} from './standard-webhooks-core.js';

/**
 * A node:crypto `KeyObject` holding an Ed25519 key, typed opaquely so the runtime's declarations need
 * no `@types/node` (a `KeyObject` is assignable).
 */
export interface Ed25519Key {
  readonly asymmetricKeyType?: string | undefined;
}

export function ed25519PrivateKey(seed: Uint8Array): Ed25519Key {
  if (seed.length !== 32) throw new WebhookError('invalid_key', 'Ed25519 seed must be 32 bytes');
  try {
    return createPrivateKey({
      key: Buffer.from(concatBytes(PKCS8_PREFIX, seed)),
      format: 'der',
      type: 'pkcs8',
    });
  } catch (cause) {
    throw new WebhookError('invalid_key', 'Invalid Ed25519 private key', { cause });
  }
}

export function ed25519PublicKey(raw: Uint8Array): Ed25519Key {
  if (raw.length !== 32) throw new WebhookError('invalid_key', 'Ed25519 public key must be 32 bytes');
  try {
    return createPublicKey({ key: Buffer.from(concatBytes(SPKI_PREFIX, raw)), format: 'der', type: 'spki' });
  } catch (cause) {
    throw new WebhookError('invalid_key', 'Invalid Ed25519 public key', { cause });
  }
}

export function rawPublicKey(ed25519Key: Ed25519Key): Uint8Array {
  const key = ed25519Key as KeyObject;
  const der = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'der', type: 'spki' });
  return new Uint8Array(der.subarray(der.length - 32));
}

export function generateEd25519KeyPair(): { secretKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
  const seed = new Uint8Array(pkcs8.subarray(pkcs8.length - 32));
  const pub = rawPublicKey(publicKey);
  return {
    secretKey: `whsk_${encodeBase64(concatBytes(seed, pub))}`,
    publicKey: `whpk_${encodeBase64(pub)}`,
  };
}

function join(parts: ReadonlyArray<Uint8Array | string>): Uint8Array {
  if (parts.length === 1 && parts[0] instanceof Uint8Array) return parts[0];
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : part)));
}

export function ed25519Sign(
  privateKey: Ed25519Key,
  ...parts: ReadonlyArray<Uint8Array | string>
): Uint8Array {
  return new Uint8Array(sign(null, join(parts), privateKey as KeyObject));
}

export function ed25519Verify(
  publicKey: Ed25519Key,
  signature: Uint8Array,
  ...parts: ReadonlyArray<Uint8Array | string>
): boolean {
  if (signature.length !== 64) return false;
  try {
    return verify(null, join(parts), publicKey as KeyObject, signature);
  } catch {
    return false;
  }
}
