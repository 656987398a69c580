/**
 * Warns when a contract takes its dedupe id or its event type from somewhere its signature does not
 * cover. A receiver trusts those two values: an unsigned id lets a captured delivery replay under fresh
 * ids (each one a new event), an unsigned type lets it replay as another event. Presets whose provider
 * leaves them unsigned get an `info` (nothing the contract can change; docs/presets.md says what
 * mitigates it); contracts that choose their own scheme get a `warning`.
 *
 * Exports: `signatureCoverage(file, parts, declared)` → `Diagnostic[]`.
 */
import type { EnvelopeConfig, SelectorConfig, SignatureConfig } from '@gen-webhooks/runtime';
import type { Diagnostic } from '../errors.js';
import { EXTENSION_KEY, type RootExtension } from './extension.js';

export interface ContractParts {
  readonly signature: SignatureConfig;
  readonly envelope: EnvelopeConfig;
  readonly selector: SelectorConfig;
}

/** Provider delivery ids their provider does not sign (the dedupe key those presets use). */
const UNSIGNED_PRESET_IDS: Readonly<Record<string, string>> = {
  github: 'X-GitHub-Delivery',
  shopify: 'X-Shopify-Event-Id',
  twilio: 'I-Twilio-Idempotency-Token',
};

/**
 * The signed-content template the runtime uses (mirrors `hmacSignedContent` in
 * runtime/signing/hmac-scheme-core.ts; a test checks the two agree).
 */
function signedContent(signature: Extract<SignatureConfig, { kind: 'hmac' }>): string {
  if (signature.signedContent !== undefined) return signature.signedContent;
  const id = signature.idHeader === undefined ? '' : '{id}.';
  return signature.timestampHeader === undefined ? `${id}{body}` : `${id}{timestamp}.{body}`;
}

export function signatureCoverage(file: string, parts: ContractParts, declared: RootExtension): Diagnostic[] {
  const { signature, envelope, selector } = parts;
  const at = (key: keyof RootExtension, field?: string) =>
    declared[key] === undefined
      ? { file }
      : { file, pointer: `/${EXTENSION_KEY}/${key}${field === undefined ? '' : `/${field}`}` };
  const out: Diagnostic[] = [];

  if (signature.kind === 'none') {
    out.push({
      level: 'warning',
      code: 'unsigned_contract',
      message:
        'signature kind none: nothing authenticates a delivery, so its id, event type and payload can be forged or replayed; use it only behind other authentication',
      ...at('signature'),
    });
    return out;
  }

  if (signature.kind === 'hmac' && signature.idHeader !== undefined) {
    const template = signedContent(signature);
    if (!template.includes('{id}')) {
      const fallback =
        envelope.kind === 'envelope'
          ? 'receivers dedupe on the envelope id instead and refuse a header that disagrees'
          : 'receivers ignore it and dedupe on a SHA-256 of the body (identical bodies are one event)';
      out.push({
        level: 'warning',
        code: 'unsigned_id',
        message: `the id header ${JSON.stringify(signature.idHeader)} is not covered by the signature (signedContent ${JSON.stringify(template)} has no {id}): ${fallback}; add {id} to signedContent, or drop signedContent for the default {id}.{timestamp}.{body}`,
        ...at('signature', 'signedContent'),
      });
    }
  }

  if (signature.kind === 'preset') {
    const header = UNSIGNED_PRESET_IDS[signature.preset];
    if (header !== undefined) {
      out.push({
        level: 'info',
        code: 'unsigned_id',
        message: `the ${signature.preset} preset dedupes on ${header}, which the provider does not sign: a captured delivery replayed with a fresh ${header} is a new event (docs/presets.md says what mitigates it)`,
        ...at('signature'),
      });
    }
  }

  if (selector.kind === 'header') {
    const preset = signature.kind === 'preset';
    out.push({
      level: preset ? 'info' : 'warning',
      code: 'unsigned_type',
      message: preset
        ? `the event type comes from the ${selector.header} header, which the ${signature.preset} signature does not cover: a captured delivery can be replayed under another event type (schema validation is what stops it)`
        : `the event type comes from the ${selector.header} header, which the signature does not cover: a captured delivery can be replayed under another event type; select on a body field instead`,
      ...at('selector', 'header'),
    });
  }
  return out;
}
