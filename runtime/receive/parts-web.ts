/**
 * The signature parts of one scheme kind on Web Crypto, for generated receivers (twins of
 * `parts-node.ts`). Receivers only verify: the Standard Webhooks and HMAC parts carry no signing code.
 */

import { type AsymmetricOptions, asymmetricScheme } from '../signing/asymmetric-scheme.js';
import { hmacVerifierWeb } from '../signing/hmac-scheme-web.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { standardWebhooksVerifierWeb } from '../signing/standard-webhooks-web.js';
import { missingVerificationKey } from '../signing/verification-key.js';
import { type ReceiverParts, schemeParts } from './parts.js';
import { unsignedIdCheck } from './unsigned-id.js';

/** Standard Webhooks contracts (the default signature). */
export const standardWebhooksParts: ReceiverParts = /* @__PURE__ */ schemeParts<'standard-webhooks'>(
  (_c, o) => standardWebhooksVerifierWeb(o),
);

/** `kind: hmac` contracts. */
export const hmacParts: ReceiverParts = /* @__PURE__ */ schemeParts<'hmac'>(hmacVerifierWeb, {
  unsignedId: unsignedIdCheck,
});

const unsigned: SignatureScheme = { name: 'none', sign: async () => ({}), verify: async () => ({}) };

/** Unsigned contracts (`kind: none`). */
export const unsignedParts: ReceiverParts = /* @__PURE__ */ schemeParts<'none'>(() => unsigned);

/** `kind: asymmetric` contracts (key pairs on Web Crypto, the same on every runtime). */
export const asymmetricParts: ReceiverParts = /* @__PURE__ */ schemeParts<'asymmetric'>(
  (c, o) => asymmetricScheme(c, o as AsymmetricOptions),
  { missingKey: missingVerificationKey },
);
