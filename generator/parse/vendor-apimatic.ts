/**
 * APIMatic `x-webhooks` / `x-callbacks` groups: `signatureVerification` (`signatureHeader`,
 * `algorithm`, `digestEncoding`, `signatureValueTemplate`) and `discriminator.propertyPointer`
 * (`$request.body#/event_type` → a body selector, `mapping` value → event).
 * https://docs.apimatic.io/v4/define-validate/spec-extensions/webhooks-callbacks
 */
import type { SelectorConfig, SignatureConfig } from '@gen-webhooks/runtime';
import { child, isRecord, type Loc } from '../load/document-store.js';
import { type EventDraft, type ParseContext, warn } from './context.js';
import { algorithmOf, encodingOf, type Hmac, type VendorDeclarations } from './vendor-hmac.js';

/** APIMatic: a single group (fields directly under the extension) or named groups. */
function apimaticGroups(loc: Loc): Loc[] {
  if (!isRecord(loc.value)) return [];
  const v = loc.value;
  if ('signatureVerification' in v || 'discriminator' in v || 'payloadVerification' in v) return [loc];
  return Object.keys(v)
    .map((key) => child(loc, key))
    .filter(
      (g) =>
        isRecord(g.value) &&
        ('signatureVerification' in g.value ||
          'discriminator' in g.value ||
          'payloadVerification' in g.value),
    );
}

export function isApimaticGroup(value: Record<string, unknown>): boolean {
  return 'signatureVerification' in value || 'discriminator' in value || 'payloadVerification' in value;
}

function apimaticSignature(ctx: ParseContext, loc: Loc): SignatureConfig | undefined {
  const v = loc.value as Record<string, unknown>;
  if (typeof v.signatureHeader !== 'string' || v.signatureHeader === '') {
    warn(ctx, loc, 'signature_not_supported', 'APIMatic signatureVerification: no signatureHeader');
    return undefined;
  }
  const raw = typeof v.algorithm === 'string' ? v.algorithm.toLowerCase() : 'hmac-sha256';
  const algorithm = algorithmOf(
    ctx,
    child(loc, 'algorithm'),
    raw === 'hmac' ? (v.hashAlgorithm ?? 'sha256') : raw,
    'sha256',
  );
  const encoding = encodingOf(ctx, child(loc, 'digestEncoding'), v.digestEncoding, 'hex');
  if (algorithm === undefined || encoding === undefined) return undefined;
  const out: { -readonly [K in keyof Hmac]: Hmac[K] } = {
    kind: 'hmac',
    header: v.signatureHeader,
    algorithm,
    encoding,
  };
  if (v.signatureValueTemplate !== undefined) {
    const template = String(v.signatureValueTemplate);
    const at = template.indexOf('{digest}');
    if (at < 0 || at + '{digest}'.length !== template.length) {
      warn(
        ctx,
        child(loc, 'signatureValueTemplate'),
        'signature_not_supported',
        `APIMatic signatureValueTemplate ${JSON.stringify(template)}: only a prefix before {digest} is supported`,
      );
      return undefined;
    }
    if (at > 0) out.prefix = template.slice(0, at);
  }
  for (const key of Object.keys(v)) {
    if (
      ![
        'signatureHeader',
        'algorithm',
        'hashAlgorithm',
        'digestEncoding',
        'signatureValueTemplate',
        'name',
      ].includes(key)
    ) {
      warn(
        ctx,
        child(loc, key),
        'signature_not_supported',
        `APIMatic signatureVerification: \`${key}\` is not read; the signature covers the body only`,
      );
    }
  }
  return out;
}

/** `$request.body#/event/type` → body field `event.type`; `$request.header.X-Event` → header. */
function apimaticSelector(ctx: ParseContext, loc: Loc): SelectorConfig | undefined {
  const pointer = (loc.value as Record<string, unknown>).propertyPointer;
  if (typeof pointer === 'string') {
    const body = /^\$request\.body#\/(.+)$/.exec(pointer);
    if (body?.[1] !== undefined) {
      const field = body[1]
        .split('/')
        .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'))
        .join('.');
      return { kind: 'body', field };
    }
    const header = /^\$request\.header\.(.+)$/.exec(pointer);
    if (header?.[1] !== undefined) return { kind: 'header', header: header[1] };
  }
  warn(
    ctx,
    loc,
    'selector_not_supported',
    `APIMatic discriminator ${JSON.stringify(pointer)}: expected $request.body#/<pointer> or $request.header.<name>`,
  );
  return undefined;
}

export function apimatic(ctx: ParseContext, root: Loc, drafts: readonly EventDraft[]): VendorDeclarations {
  const groups = [
    ...apimaticGroups(child(root, 'x-webhooks')),
    ...apimaticGroups(child(root, 'x-callbacks')),
  ];
  if (groups.length === 0) return {};
  if (groups.length > 1) {
    warn(
      ctx,
      root,
      'signature_per_webhook',
      "several APIMatic webhook/callback groups; a contract has one scheme and selector, the first group's are used",
    );
  }
  const group = groups[0] as Loc;
  const g = group.value as Record<string, unknown>;
  const verification = isRecord(g.signatureVerification)
    ? child(group, 'signatureVerification')
    : isRecord(g.payloadVerification)
      ? child(group, 'payloadVerification')
      : undefined;
  const signature = verification === undefined ? undefined : apimaticSignature(ctx, verification);
  const discriminator = isRecord(g.discriminator) ? child(group, 'discriminator') : undefined;
  const selector = discriminator === undefined ? undefined : apimaticSelector(ctx, discriminator);
  const matches = new Map<string, string>();
  const mapping =
    discriminator && isRecord((discriminator.value as Record<string, unknown>).mapping)
      ? ((discriminator.value as Record<string, unknown>).mapping as Record<string, unknown>)
      : {};
  for (const [value, target] of Object.entries(mapping)) {
    const draft = drafts.find((d) => d.name === target || d.operationId === target);
    if (draft !== undefined) matches.set(draft.name, value);
    else
      warn(
        ctx,
        child(child(discriminator as Loc, 'mapping'), value),
        'unknown_event',
        `APIMatic discriminator maps ${JSON.stringify(value)} to ${JSON.stringify(target)}, which is no event of the contract`,
      );
  }
  return {
    ...(signature ? { signature } : {}),
    ...(selector ? { selector } : {}),
    ...(matches.size > 0 ? { matches } : {}),
  };
}
