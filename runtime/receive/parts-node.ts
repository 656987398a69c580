/**
 * The signature parts of one scheme kind on node:crypto, for generated receivers (twins of
 * `parts-web.ts`), each with the node:http adapter behind `receiver.node()` (Node only) and failed
 * completions retried in the background (`backgroundCompletions`).
 */
import { nodeHandler } from '../adapters/node-http.js';
import type { ProviderPreset } from '../presets/types.js';
import { type AsymmetricOptions, asymmetricScheme } from '../signing/asymmetric-scheme.js';
import { hmacScheme } from '../signing/hmac-scheme.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { standardWebhooksVerifier } from '../signing/standard-webhooks.js';
import { missingVerificationKey } from '../signing/verification-key.js';
import { backgroundCompletions } from './completion-background.js';
import { brokerConsumers } from './consume-broker.js';
import { type ReceiverParts, schemeParts, presetParts as webPresetParts } from './parts.js';
import { unsignedIdCheck } from './unsigned-id.js';

/** What every Node part adds: `receiver.node()` and completions retried in the background. */
const node = { node: nodeHandler, completions: backgroundCompletions, consumers: brokerConsumers };

/** Standard Webhooks contracts (the default signature). */
export const standardWebhooksParts: ReceiverParts = {
  ...schemeParts<'standard-webhooks'>((_c, o) => standardWebhooksVerifier(o)),
  ...node,
};

/** `kind: hmac` contracts. */
export const hmacParts: ReceiverParts = schemeParts<'hmac'>(hmacScheme, {
  unsignedId: unsignedIdCheck,
  ...node,
});

// The twin of resolve.ts's `noSignature` (that file binds every preset).
const unsigned: SignatureScheme = { name: 'none', sign: () => ({}), verify: () => ({}) };

/** Unsigned contracts (`kind: none`). */
export const unsignedParts: ReceiverParts = { ...schemeParts<'none'>(() => unsigned), ...node };

/** `kind: asymmetric` contracts (key pairs on Web Crypto, the same on every runtime). */
export const asymmetricParts: ReceiverParts = schemeParts<'asymmetric'>(
  (c, o) => asymmetricScheme(c, o as AsymmetricOptions),
  { missingKey: missingVerificationKey, ...node },
);

/** The parts of one provider preset (its scheme and its rules; nothing of the other presets). */
export function presetParts(preset: ProviderPreset): ReceiverParts {
  return { ...webPresetParts(preset), ...node };
}
