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

/** What a receiver or parser was given to verify with. */
export interface VerificationKeys {
  readonly secret?: unknown;
  readonly publicKey?: unknown;
  readonly scheme?: unknown;
}

/**
 * The `invalid_config` a receiver or parser throws when built without the shared `secret` a
 * contract's deliveries are verified with (`undefined` when given, or not needed). A receiver part
 * (`missingKey`, this one the default): key-pair contracts need `missingVerificationKey`.
 */
export function missingSecret(
  signature: SignatureConfig,
  options: VerificationKeys,
  who: string,
  contract: string,
): WebhookError | undefined {
  if (options.scheme !== undefined || signature.kind === 'none' || options.secret !== undefined)
    return undefined;
  return new WebhookError('invalid_config', `${who} needs the signing \`secret\` of "${contract}"`);
}

/**
 * `missingSecret`, or for an asymmetric contract the sender's `publicKey` (the asymmetric parts and
 * the runtime's createReceiver).
 */
export function missingVerificationKey(
  signature: SignatureConfig,
  options: VerificationKeys,
  who: string,
  contract: string,
): WebhookError | undefined {
  if (options.scheme !== undefined || signature.kind !== 'asymmetric') {
    return missingSecret(signature, options, who, contract);
  }
  return keyList(options.publicKey).length > 0
    ? undefined
    : new WebhookError(
        'invalid_config',
        `${who} needs the \`publicKey\` of "${contract}" (its deliveries are signed with ${signature.algorithm}: a PEM, base64 DER or JWK public key)`,
        { details: { option: 'publicKey', algorithm: signature.algorithm } },
      );
}
