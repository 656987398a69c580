/**
 * The public-key scheme (`SignatureConfig` kind `asymmetric`, Fern's `type: asymmetric`) on Web Crypto,
 * one implementation for the Node and Web entries (asynchronous; `crypto.subtle` exists on Node 20,
 * Workers, Deno and Bun). Receivers verify with `publicKey` (several during a rotation: any may
 * match); senders sign with `secret`, the private key (several: one signature each, comma-joined).
 * What is signed, the prefix and the timestamp header work as in the HMAC scheme (hmac-scheme-core.ts).
 */
import { toBytes } from '../bytes.js';
import type { AsymmetricAlgorithm, SignatureConfig } from '../contract.js';
import { WebhookError } from '../errors.js';
import { derToRawSignature, rawToDerSignature } from '../presets/web-crypto.js';
import { checkTimestamp, checkTolerance, parseUnixSeconds } from '../timestamp.js';
import {
  type PrivateKeyInput,
  type PublicKeyInput,
  privateKeyImporter,
  publicKeyImporter,
  webAlgorithm,
} from './asymmetric-keys.js';
import { concatBytes, decodeBase64, decodeCanonicalHex, utf8 } from './encoding.js';
import {
  type CompiledHmac,
  compileHmacConfig,
  formatSignatures,
  signedHeaders,
  signedParts,
} from './hmac-scheme-core.js';
import type { RawBody, SchemeOptions, SignatureScheme } from './scheme.js';
import {
  asVerificationError,
  checkSignInput,
  delivered,
  noMatch,
  readHeader,
} from './standard-webhooks-core.js';
import { keyList } from './verification-key.js';
import { subtle, view } from './web-crypto.js';

export type AsymmetricConfig = Extract<SignatureConfig, { readonly kind: 'asymmetric' }>;

export interface AsymmetricOptions extends Omit<SchemeOptions, 'secret'> {
  /** Private key(s) to sign with (senders). */
  readonly secret?: SchemeOptions['secret'];
  /** Public key(s) to verify with (receivers); a rotation may list several. */
  readonly publicKey?: PublicKeyInput | readonly PublicKeyInput[];
}

const MAX_SIGNATURES = 16;

/** Header handling and signed content as the HMAC scheme has them (same fields, same template rules). */
function compile(config: AsymmetricConfig): CompiledHmac {
  try {
    return compileHmacConfig({
      kind: 'hmac',
      header: config.header,
      algorithm: 'sha256',
      encoding: config.encoding,
      ...(config.prefix === undefined ? {} : { prefix: config.prefix }),
      ...(config.timestampHeader === undefined ? {} : { timestampHeader: config.timestampHeader }),
      signedContent: config.signedContent ?? '{body}',
    });
  } catch (error) {
    if (error instanceof WebhookError)
      throw new WebhookError('invalid_config', error.message.replace(/^hmac/, 'asymmetric'));
    throw error;
  }
}

export function asymmetricScheme(config: AsymmetricConfig, options: AsymmetricOptions): SignatureScheme {
  const algorithm: AsymmetricAlgorithm = config.algorithm;
  const web = webAlgorithm(algorithm);
  const compiled = compile(config);
  const { tolerance, now } = options;
  checkTolerance(tolerance);
  const signsTimestamp = `${compiled.template.before}${compiled.template.after}`.includes('{timestamp}');
  // Read and checked now: a malformed key is `invalid_key` when the receiver/sender is built.
  const verifiers = keyList(options.publicKey).map((key) => publicKeyImporter(algorithm, key));
  const signers = keyList<PrivateKeyInput>(options.secret).map((key) => privateKeyImporter(algorithm, key));
  const content = (parts: readonly [string, string], body: RawBody) =>
    concatBytes(utf8(parts[0]), toBytes(body), utf8(parts[1]));
  // Web Crypto takes ECDSA signatures raw (`r‖s`); DER is what OpenSSL-based signers send.
  const forVerify = (signature: Uint8Array): Uint8Array | undefined => {
    if (web.ecSize === undefined) return signature;
    if (signature.length === 2 * web.ecSize) return signature;
    return derToRawSignature(signature, web.ecSize);
  };
  return {
    name: 'asymmetric',
    async sign(input) {
      if (signers.length === 0) {
        throw new WebhookError('invalid_config', `${algorithm} signing needs the private key as the secret`);
      }
      if (compiled.timestampHeader !== undefined) checkSignInput(input.id, input.timestamp);
      const data = view(content(signedParts(compiled, input.id, String(input.timestamp)), input.body));
      const signatures: Uint8Array[] = [];
      for (const key of signers) {
        const raw = new Uint8Array(await subtle().sign(web.sign, await key(), data));
        signatures.push(web.ecSize === undefined ? raw : rawToDerSignature(raw));
      }
      return signedHeaders(compiled, formatSignatures(compiled, signatures), input.id, input.timestamp);
    },
    async verify(input) {
      if (verifiers.length === 0) {
        throw new WebhookError(
          'invalid_config',
          `${algorithm} verification needs the sender's \`publicKey\``,
        );
      }
      try {
        const value = readHeader(input.headers, compiled.header);
        if (value === undefined || value === '') {
          throw new WebhookError('missing_header', `Missing ${compiled.header} header`, {
            details: { header: compiled.header },
          });
        }
        let timestamp: number | undefined;
        let timestampText = '';
        if (compiled.timestampHeader !== undefined) {
          const text = readHeader(input.headers, compiled.timestampHeader);
          timestamp = parseUnixSeconds(text === '' ? undefined : text, compiled.timestampHeader);
          timestampText = String(timestamp);
          checkTimestamp(timestamp, { tolerance, now }, compiled.timestampHeader);
        }
        const signatures: Uint8Array[] = [];
        for (const raw of value.split(',').slice(0, MAX_SIGNATURES)) {
          const token = raw.trim();
          if (token.length <= compiled.prefix.length || !token.startsWith(compiled.prefix)) continue;
          const text = token.slice(compiled.prefix.length);
          const bytes = compiled.encoding === 'hex' ? decodeCanonicalHex(text) : decodeBase64(text);
          const usable = bytes === undefined ? undefined : forVerify(bytes);
          if (usable !== undefined) signatures.push(usable);
        }
        if (signatures.length === 0) {
          throw new WebhookError(
            'malformed_header',
            `${compiled.header} must be ${compiled.prefix}<${compiled.encoding} ${algorithm} signature>`,
            { details: { header: compiled.header } },
          );
        }
        const data = view(content(signedParts(compiled, '', timestampText), input.body));
        for (const key of verifiers) {
          const cryptoKey = await key();
          for (const signature of signatures) {
            if (await subtle().verify(web.sign, cryptoKey, view(signature), data)) {
              // Only a signed timestamp is reported (VerifiedDelivery.timestamp).
              return delivered(undefined, signsTimestamp ? timestamp : undefined);
            }
          }
        }
        throw noMatch(compiled.header);
      } catch (error) {
        throw asVerificationError(error);
      }
    },
  };
}
