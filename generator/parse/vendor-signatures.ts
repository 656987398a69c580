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
import type { SelectorConfig, SignatureConfig } from '@gen-webhooks/runtime';
import { child, isRecord, type Loc } from '../load/document-store.js';
import { type EventDraft, info, type ParseContext, warn } from './context.js';

export interface VendorDeclarations {
  readonly signature?: SignatureConfig;
  readonly selector?: SelectorConfig;
  /** `match.body` per event name (APIMatic discriminator mapping). */
  readonly matches?: ReadonlyMap<string, string>;
}

const UNDERSTOOD = new Set([
  'x-fern-webhook-signature',
  'x-speakeasy-webhooks',
  'x-webhooks',
  'x-callbacks',
  'x-gen-webhooks',
]);
const LOOKS_LIKE_SIGNATURE = /^x-.*(signature|signing|hmac|webhook-?secur|verif)/i;

type Hmac = Extract<SignatureConfig, { kind: 'hmac' }>;
type Algorithm = Hmac['algorithm'];

function algorithmOf(
  ctx: ParseContext,
  loc: Loc,
  value: unknown,
  fallback: Algorithm,
): Algorithm | undefined {
  if (value === undefined) return fallback;
  const text = typeof value === 'string' ? value.toLowerCase().replace(/^hmac-?/, '') : '';
  if (text === 'sha256' || text === 'sha1' || text === 'sha512') return text;
  warn(
    ctx,
    loc,
    'signature_not_supported',
    `signature algorithm ${JSON.stringify(value)} cannot be verified by the runtime (sha256, sha1, sha512)`,
  );
  return undefined;
}

function encodingOf(
  ctx: ParseContext,
  loc: Loc,
  value: unknown,
  fallback: 'hex' | 'base64',
): 'hex' | 'base64' | undefined {
  if (value === undefined) return fallback;
  if (value === 'hex' || value === 'base64') return value;
  warn(
    ctx,
    loc,
    'signature_not_supported',
    `signature encoding ${JSON.stringify(value)} cannot be verified by the runtime (hex, base64)`,
  );
  return undefined;
}

/** Fern's config object → an HMAC SignatureConfig, or undefined (with warnings) when it cannot be one. */
function fern(ctx: ParseContext, loc: Loc): SignatureConfig | undefined {
  const v = loc.value as Record<string, unknown>;
  if (v.type === 'asymmetric') {
    warn(
      ctx,
      loc,
      'signature_not_supported',
      `x-fern-webhook-signature: asymmetric (${String(v['asymmetric-algorithm'] ?? '?')}) signatures are not a SignatureConfig the generator can write; pass \`scheme\` to createReceiver`,
    );
    return undefined;
  }
  if (v.type !== 'hmac' || typeof v.header !== 'string' || v.header === '') {
    warn(ctx, loc, 'signature_not_supported', 'x-fern-webhook-signature: expected type hmac with a header');
    return undefined;
  }
  const algorithm = algorithmOf(ctx, child(loc, 'algorithm'), v.algorithm, 'sha256');
  const encoding = encodingOf(ctx, child(loc, 'encoding'), v.encoding, 'base64');
  if (algorithm === undefined || encoding === undefined) return undefined;
  const out: { -readonly [K in keyof Hmac]: Hmac[K] } = {
    kind: 'hmac',
    header: v.header,
    algorithm,
    encoding,
  };
  if (typeof v['signature-prefix'] === 'string' && v['signature-prefix'] !== '')
    out.prefix = v['signature-prefix'];
  const timestamp = isRecord(v.timestamp) ? v.timestamp : undefined;
  if (timestamp !== undefined) {
    const format = timestamp.format ?? 'unix-seconds';
    if (format !== 'unix-seconds') {
      warn(
        ctx,
        child(loc, 'timestamp'),
        'signature_not_supported',
        `x-fern-webhook-signature: timestamp format ${JSON.stringify(format)} is not checked by the runtime (unix-seconds)`,
      );
      return undefined;
    }
    if (typeof timestamp.header === 'string') out.timestampHeader = timestamp.header;
    if (typeof timestamp.tolerance === 'number') {
      info(
        ctx,
        child(child(loc, 'timestamp'), 'tolerance'),
        'signature_tolerance',
        `x-fern-webhook-signature: a ${timestamp.tolerance} s window; pass \`tolerance: ${timestamp.tolerance}\` to createReceiver (default 300)`,
      );
    }
  }
  const format = isRecord(v['payload-format']) ? v['payload-format'] : undefined;
  const components = Array.isArray(format?.components) ? format.components : ['body'];
  const delimiter = typeof format?.delimiter === 'string' ? format.delimiter : '.';
  const parts: string[] = [];
  for (const component of components) {
    if (component === 'body') parts.push('{body}');
    else if (component === 'timestamp' && out.timestampHeader !== undefined) parts.push('{timestamp}');
    else {
      warn(
        ctx,
        child(loc, 'payload-format'),
        'signature_not_supported',
        `x-fern-webhook-signature: the signed component ${JSON.stringify(component)} is not supported by the runtime's HMAC scheme`,
      );
      return undefined;
    }
  }
  if (!parts.includes('{body}')) return undefined;
  // Always explicit: the runtime's default with a timestamp header is `{timestamp}.{body}`.
  if (out.timestampHeader !== undefined || parts.length > 1) out.signedContent = parts.join(delimiter);
  for (const key of ['key-id-header', 'jwks-url', 'body-hash-binding', 'url-normalization']) {
    if (v[key] !== undefined)
      warn(
        ctx,
        child(loc, key),
        'signature_not_supported',
        `x-fern-webhook-signature: ${key} is not supported`,
      );
  }
  return out;
}

function fernDeclaration(
  ctx: ParseContext,
  root: Loc,
  drafts: readonly EventDraft[],
): SignatureConfig | undefined {
  const rootLoc = child(root, 'x-fern-webhook-signature');
  const rootConfig = isRecord(rootLoc.value) ? fern(ctx, rootLoc) : undefined;
  const own = new Map<string, SignatureConfig | undefined>();
  for (const draft of drafts) {
    const op = draft.operation;
    if (op === undefined) continue;
    const loc = child(op, 'x-fern-webhook-signature');
    if (isRecord(loc.value)) own.set(JSON.stringify(loc.value), fern(ctx, loc));
  }
  if (own.size === 0) return rootConfig;
  const configs = [...own.values()];
  const first = configs[0];
  if (
    configs.length > 1 ||
    (rootConfig !== undefined && JSON.stringify(rootConfig) !== JSON.stringify(first))
  ) {
    warn(
      ctx,
      root,
      'signature_per_webhook',
      "x-fern-webhook-signature differs between webhooks; a contract has one scheme, the first webhook's is used",
    );
  }
  return first;
}

function speakeasy(ctx: ParseContext, root: Loc): SignatureConfig | undefined {
  const loc = child(child(root, 'x-speakeasy-webhooks'), 'security');
  if (!isRecord(loc.value)) return undefined;
  const v = loc.value;
  const type = v.type ?? 'signature';
  if (type === 'signatureStandardWebhooks') return { kind: 'standard-webhooks' };
  if (type !== 'signature') {
    warn(
      ctx,
      loc,
      'signature_not_supported',
      `x-speakeasy-webhooks: security type ${JSON.stringify(type)} cannot be verified by the generated receiver; pass \`scheme\` to createReceiver`,
    );
    return undefined;
  }
  const algorithm = algorithmOf(ctx, child(loc, 'algorithm'), v.algorithm, 'sha256');
  const encoding = encodingOf(ctx, child(loc, 'signatureTextEncoding'), v.signatureTextEncoding, 'base64');
  if (algorithm === undefined || encoding === undefined) return undefined;
  const header =
    typeof v.headerName === 'string' && v.headerName !== '' ? v.headerName : 'x-webhook-signature';
  return { kind: 'hmac', header, algorithm, encoding };
}

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

function apimatic(ctx: ParseContext, root: Loc, drafts: readonly EventDraft[]): VendorDeclarations {
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
