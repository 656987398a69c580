/** node:crypto as the runtime uses it (see `node.ts`). */
import type { Buffer } from './globals.js';
import { builtin } from './node.js';

export interface KeyObject {
  readonly type: 'secret' | 'public' | 'private';
  readonly asymmetricKeyType?: string | undefined;
  export(options: { format: 'der'; type: 'spki' | 'pkcs8' }): Buffer;
}
interface Hmac {
  update(data: string | Uint8Array): Hmac;
  digest(): Buffer;
  digest(encoding: 'base64' | 'hex' | 'base64url'): string;
}
interface DerKey {
  key: Uint8Array;
  format: 'der';
  type: 'spki' | 'pkcs8';
}
interface NodeCrypto {
  createHmac(algorithm: string, key: KeyObject | Uint8Array | string): Hmac;
  createSecretKey(key: Uint8Array): KeyObject;
  createPrivateKey(key: DerKey): KeyObject;
  createPublicKey(key: DerKey | KeyObject): KeyObject;
  generateKeyPairSync(type: 'ed25519'): { publicKey: KeyObject; privateKey: KeyObject };
  randomBytes(size: number): Buffer;
  sign(algorithm: null, data: Uint8Array, key: KeyObject): Buffer;
  timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
  verify(algorithm: null, data: Uint8Array, key: KeyObject, signature: Uint8Array): boolean;
}

const crypto = builtin<NodeCrypto>('node:crypto');
export const {
  createHmac,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  timingSafeEqual,
  verify,
} = crypto;
