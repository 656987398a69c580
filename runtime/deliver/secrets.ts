/** Endpoint secret generation in the format the contract's signature scheme expects. */
import { randomBytes } from 'node:crypto';
import type { SignatureConfig } from '../contract.js';
import { generateStandardSecret } from '../signing/standard-webhooks.js';

/** `whsec_<base64>` for Standard Webhooks / Svix; a 256-bit base64url shared secret otherwise. */
export function generateEndpointSecret(signature: SignatureConfig = { kind: 'standard-webhooks' }): string {
  if (
    signature.kind === 'standard-webhooks' ||
    (signature.kind === 'preset' && signature.preset === 'svix')
  ) {
    return generateStandardSecret(24);
  }
  return randomBytes(32).toString('base64url');
}
