/**
 * The simple HMAC scheme on node:crypto: `SignatureConfig` kind `hmac`, e.g. Petstore's
 * `X-Webhook-Signature: sha256=<hex>`. String secrets are used as their UTF-8 bytes (the convention of
 * GitHub-style schemes); pass bytes for binary keys. Several secrets: `sign` emits one signature per
 * secret joined by `, `, `verify` accepts any.
 *
 * Exports: `hmacScheme(config, options)` → `SignatureScheme`.
 */
import { createHmac } from 'node:crypto';
import { toBytes } from '../bytes.js';
import { checkTimestamp, checkTolerance } from '../timestamp.js';
import { timingSafeEqualBytes, toKeyBytes } from './hmac.js';
import {
  compileHmacConfig,
  formatSignatures,
  type HmacConfig,
  readHmacRequest,
  signedHeaders,
  signedParts,
} from './hmac-scheme-core.js';
import type { RawBody, SchemeOptions, SignatureScheme } from './scheme.js';
import {
  asVerificationError,
  checkSignInput,
  delivered,
  noMatch,
  secretList,
} from './standard-webhooks-core.js';

export function hmacScheme(config: HmacConfig, options: SchemeOptions): SignatureScheme {
  const compiled = compileHmacConfig(config);
  const keys = secretList(options.secret).map(toKeyBytes);
  const { tolerance, now } = options;
  checkTolerance(tolerance);
  const digest = (key: Uint8Array, parts: readonly [string, string], body: string | Uint8Array): Uint8Array =>
    createHmac(compiled.algorithm, key).update(parts[0]).update(body).update(parts[1]).digest();
  const bodyInput = (body: RawBody) => (typeof body === 'string' ? body : toBytes(body));
  return {
    name: 'hmac',
    sign(input) {
      if (compiled.timestampHeader !== undefined || compiled.idHeader !== undefined) {
        checkSignInput(input.id, input.timestamp);
      }
      const parts = signedParts(compiled, input.id, String(input.timestamp));
      const body = bodyInput(input.body);
      const digests = keys.map((key) => digest(key, parts, body));
      return signedHeaders(compiled, formatSignatures(compiled, digests), input.id, input.timestamp);
    },
    verify(input) {
      try {
        const request = readHmacRequest(compiled, input.headers);
        if (request.timestamp !== undefined && compiled.timestampHeader !== undefined) {
          checkTimestamp(request.timestamp, { tolerance, now }, compiled.timestampHeader);
        }
        const parts = signedParts(compiled, request.id ?? '', request.timestampText);
        const body = bodyInput(input.body);
        for (const key of keys) {
          const expected = digest(key, parts, body);
          for (const signature of request.signatures) {
            if (timingSafeEqualBytes(expected, signature)) {
              return delivered(request.id, request.timestamp);
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
