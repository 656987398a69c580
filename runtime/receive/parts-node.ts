/** The signature parts of one scheme kind on node:crypto, for generated receivers (twins of `parts-web.ts`). */
import { type AsymmetricOptions, asymmetricScheme } from '../signing/asymmetric-scheme.js';
import { hmacScheme } from '../signing/hmac-scheme.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { standardWebhooks } from '../signing/standard-webhooks.js';
import { type ReceiverParts, schemeParts } from './parts.js';

/** Standard Webhooks contracts (the default signature). */
export const standardWebhooksParts: ReceiverParts = /* @__PURE__ */ schemeParts(
  'standard-webhooks',
  (_c, o) => standardWebhooks(o),
);

/** `kind: hmac` contracts. */
export const hmacParts: ReceiverParts = /* @__PURE__ */ schemeParts('hmac', hmacScheme);

// The twin of resolve.ts's `noSignature` (that file binds every preset).
const unsigned: SignatureScheme = { name: 'none', sign: () => ({}), verify: () => ({}) };

/** Unsigned contracts (`kind: none`). */
export const unsignedParts: ReceiverParts = /* @__PURE__ */ schemeParts('none', () => unsigned);

/** `kind: asymmetric` contracts (key pairs on Web Crypto, the same on every runtime). */
export const asymmetricParts: ReceiverParts = /* @__PURE__ */ schemeParts('asymmetric', (c, o) =>
  asymmetricScheme(c, o as AsymmetricOptions),
);
