/**
 * Signature schemes (and APIMatic's event discriminator) declared in other generators' dialects,
 * read when a document has no `x-gen-webhooks` signature:
 * - Fern `x-fern-webhook-signature` (root, or on webhook operations): HMAC `header`, `algorithm`,
 *   `encoding`, `signature-prefix`, `payload-format` (`components` joined by `delimiter`) and
 *   `timestamp` (`header`, `format`, `tolerance`); `asymmetric` keys are reported, not guessed.
 * - Speakeasy `x-speakeasy-webhooks.security`: `signature` (`headerName`, `signatureTextEncoding`,
 *   `algorithm: hmac-sha256`) or `signatureStandardWebhooks`.
 * - APIMatic `x-webhooks` / `x-callbacks` groups: `signatureVerification` (`signatureHeader`,
 *   `algorithm`, `digestEncoding`, `signatureValueTemplate`) and `discriminator.propertyPointer`
 *   (`$request.body#/event_type` → a body selector, `mapping` value → event).
 * What a dialect says that the runtime cannot check is a warning naming the pointer; so is any other
 * root or operation extension that looks like a signature declaration: never a silent default.
 */
import { child, isRecord, type Loc } from '../load/document-store.js';
import { type EventDraft, type ParseContext, warn } from './context.js';
import { apimatic } from './vendor-apimatic.js';
import { fernDeclaration } from './vendor-fern.js';
import type { VendorDeclarations } from './vendor-hmac.js';
import { speakeasy } from './vendor-speakeasy.js';

const UNDERSTOOD = new Set([
  'x-fern-webhook-signature',
  'x-speakeasy-webhooks',
  'x-webhooks',
  'x-callbacks',
  'x-gen-webhooks',
]);
const LOOKS_LIKE_SIGNATURE = /^x-.*(signature|signing|hmac|webhook-?secur|verif)/i;

/** Extensions that look like a signature declaration but are no dialect we read (the default scheme applies). */
export function warnUnknownSignatureExtensions(
  ctx: ParseContext,
  root: Loc,
  drafts: readonly EventDraft[],
): void {
  const owners: Loc[] = [root, ...drafts.flatMap((d) => (d.operation ? [d.operation] : []))];
  for (const owner of owners) {
    if (!isRecord(owner.value)) continue;
    for (const key of Object.keys(owner.value)) {
      if (UNDERSTOOD.has(key) || !LOOKS_LIKE_SIGNATURE.test(key)) continue;
      warn(
        ctx,
        child(owner, key),
        'unknown_signature_extension',
        `${key} looks like a signature declaration the generator does not read; receivers use the default scheme unless \`x-gen-webhooks: { signature }\` (or --signature / the config's \`signature\`) says otherwise`,
      );
    }
  }
}

export function readVendorDeclarations(
  ctx: ParseContext,
  root: Loc,
  drafts: readonly EventDraft[],
): VendorDeclarations {
  const fromApimatic = apimatic(ctx, root, drafts);
  const signature = fernDeclaration(ctx, root, drafts) ?? speakeasy(ctx, root) ?? fromApimatic.signature;
  return { ...fromApimatic, ...(signature ? { signature } : {}) };
}

export type { VendorDeclarations } from './vendor-hmac.js';
