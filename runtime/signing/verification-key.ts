/**
 * What a receiver or parser needs to verify: the sender's `publicKey` for a key-pair contract, else
 * the shared `secret`. Apart from the key-pair scheme so that a receiver of any other contract does
 * not carry it.
 */
import type { SignatureConfig } from '../contract.js';
import { WebhookError } from '../errors.js';

function count(value: unknown): number {
  if (value === undefined) return 0;
  return Array.isArray(value) ? value.length : 1;
}

/**
 * The `invalid_config` a receiver or parser throws when built without what verifying takes: the
 * sender's `publicKey` for an asymmetric contract, else the shared `secret`. `undefined` when present.
 */
export function missingVerificationKey(
  signature: SignatureConfig,
  options: { readonly secret?: unknown; readonly publicKey?: unknown; readonly scheme?: unknown },
  who: string,
  contract: string,
): WebhookError | undefined {
  if (options.scheme !== undefined || signature.kind === 'none') return undefined;
  if (signature.kind === 'asymmetric') {
    return count(options.publicKey) > 0
      ? undefined
      : new WebhookError(
          'invalid_config',
          `${who} needs the \`publicKey\` of "${contract}" (its deliveries are signed with ${signature.algorithm}: a PEM, base64 DER or JWK public key)`,
          { details: { option: 'publicKey', algorithm: signature.algorithm } },
        );
  }
  return options.secret === undefined
    ? new WebhookError('invalid_config', `${who} needs the signing \`secret\` of "${contract}"`)
    : undefined;
}
