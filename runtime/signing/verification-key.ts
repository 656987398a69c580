/**
 * What a receiver or parser needs to verify: the sender's `publicKey` for a key-pair contract, else
 * the shared `secret`. Apart from the key-pair scheme so that a receiver of any other contract does
 * not carry it.
 */
import type { SignatureConfig } from '../contract.js';
import { WebhookError } from '../errors.js';

/** One key or a rotation's list of keys, as a list. */
export function keyList<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
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
    return keyList(options.publicKey).length > 0
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
