/**
 * The simple HMAC scheme (`SignatureConfig` kind `hmac`) on Web Crypto: the twin of `hmac-scheme.ts`,
 * asynchronous. Imports no `node:*` module. `hmacVerifierWeb` is its verifying half, for generated
 * receivers (it trusts their checked config).
 */
import { toBytes } from '../bytes.js';
import { checkTimestamp, checkTolerance } from '../timestamp.js';
import { concatBytes, constantTimeEqual, utf8 } from './encoding.js';
import {
  type CompiledHmac,
  compileCheckedHmac,
  compileHmacConfig,
  formatSignatures,
  type HmacConfig,
  readHmacRequest,
  signedHeaders,
  signedParts,
  textSecretBytes,
} from './hmac-scheme-core.js';
import type { RawBody, SchemeOptions, SchemeVerifier, SignatureScheme } from './scheme.js';
import {
  asVerificationError,
  checkSignInput,
  delivered,
  noMatch,
  secretList,
} from './standard-webhooks-core.js';
import { importHmacKey, lazy, macWith } from './web-crypto.js';

/** What `verify` and `sign` share: the compiled config, the keys (imported on first use), the clock. */
function prepare(compiled: CompiledHmac, options: SchemeOptions) {
  const keys = secretList(options.secret).map((secret) => {
    const bytes = textSecretBytes(secret);
    return lazy(() => importHmacKey(compiled.algorithm, bytes));
  });
  checkTolerance(options.tolerance);
  return { compiled, keys, tolerance: options.tolerance, now: options.now };
}

type Prepared = ReturnType<typeof prepare>;

const content = (parts: readonly [string, string], body: RawBody) =>
  concatBytes(utf8(parts[0]), toBytes(body), utf8(parts[1]));

function verifierOf({ compiled, keys, tolerance, now }: Prepared): SchemeVerifier {
  return {
    name: 'hmac',
    async verify(input) {
      try {
        const request = readHmacRequest(compiled, input.headers);
        if (request.timestamp !== undefined && compiled.timestampHeader !== undefined) {
          checkTimestamp(request.timestamp, { tolerance, now }, compiled.timestampHeader);
        }
        const data = content(signedParts(compiled, request.id ?? '', request.timestampText), input.body);
        for (const key of keys) {
          const expected = await macWith(await key(), data);
          for (const signature of request.signatures) {
            if (constantTimeEqual(expected, signature)) return delivered(request.id, request.timestamp);
          }
        }
        throw noMatch(compiled.header);
      } catch (error) {
        throw asVerificationError(error);
      }
    },
  };
}

/**
 * The verifying half of `hmacSchemeWeb`, for generated receivers (a bundle that only verifies signs
 * nothing). `config` is not checked: the generator checked the contract's.
 */
export function hmacVerifierWeb(config: HmacConfig, options: SchemeOptions): SchemeVerifier {
  return verifierOf(prepare(compileCheckedHmac(config), options));
}

export function hmacSchemeWeb(config: HmacConfig, options: SchemeOptions): SignatureScheme {
  const prepared = prepare(compileHmacConfig(config), options);
  const { compiled, keys } = prepared;
  return {
    ...verifierOf(prepared),
    async sign(input) {
      if (compiled.timestampHeader !== undefined || compiled.idHeader !== undefined) {
        checkSignInput(input.id, input.timestamp);
      }
      const data = content(signedParts(compiled, input.id, String(input.timestamp)), input.body);
      const digests: Uint8Array[] = [];
      for (const key of keys) digests.push(await macWith(await key(), data));
      return signedHeaders(compiled, formatSignatures(compiled, digests), input.id, input.timestamp);
    },
  };
}
