/**
 * Fern `x-fern-webhook-signature` (root, or on webhook operations): HMAC `header`, `algorithm`,
 * `encoding`, `signature-prefix`, `payload-format` (`components` joined by `delimiter`) and
 * `timestamp` (`header`, `format`, `tolerance`); `type: asymmetric` with `asymmetric-algorithm`
 * (ed25519, ecdsa-sha256/384/512, rsa-sha256/384/512) is a public-key scheme: the receiver takes the
 * key as `publicKey` (`jwks-url` and `key-id-header` are reported, keys are not fetched).
 * https://buildwithfern.com/learn/api-definitions/openapi/endpoints/webhooks
 */
import type { SignatureConfig } from '@gen-webhooks/runtime';
import { child, isRecord, type Loc } from '../load/document-store.js';
import { type EventDraft, info, type ParseContext, warn } from './context.js';
import { ASYMMETRIC_ALGORITHMS, type Asymmetric } from './extension-values.js';
import { algorithmOf, encodingOf, type Hmac } from './vendor-hmac.js';

/** What HMAC and asymmetric declarations share: prefix, timestamp header, signed content. */
interface Framing {
  prefix?: string;
  timestampHeader?: string;
  signedContent?: string;
}

function framing(ctx: ParseContext, loc: Loc, v: Record<string, unknown>): Framing | undefined {
  const out: Framing = {};
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
        `x-fern-webhook-signature: the signed component ${JSON.stringify(component)} is not supported by the runtime`,
      );
      return undefined;
    }
  }
  if (!parts.includes('{body}')) return undefined;
  // Always explicit: the runtime's HMAC default with a timestamp header is `{timestamp}.{body}`.
  if (out.timestampHeader !== undefined || parts.length > 1) out.signedContent = parts.join(delimiter);
  for (const key of ['key-id-header', 'jwks-url', 'body-hash-binding', 'url-normalization']) {
    if (v[key] !== undefined)
      warn(
        ctx,
        child(loc, key),
        'signature_not_supported',
        key === 'jwks-url' || key === 'key-id-header'
          ? `x-fern-webhook-signature: ${key} is not followed (keys are not fetched); pass the sender's public key(s) as \`publicKey\` to createReceiver`
          : `x-fern-webhook-signature: ${key} is not supported`,
      );
  }
  return out;
}

/** `type: asymmetric`: a public-key scheme the receiver verifies with the `publicKey` it is given. */
function fernAsymmetric(ctx: ParseContext, loc: Loc, v: Record<string, unknown>): Asymmetric | undefined {
  const raw = v['asymmetric-algorithm'];
  const algorithm = ASYMMETRIC_ALGORITHMS.find(
    (a) => a === (typeof raw === 'string' ? raw.toLowerCase() : raw),
  );
  if (algorithm === undefined) {
    warn(
      ctx,
      child(loc, 'asymmetric-algorithm'),
      'signature_not_supported',
      `x-fern-webhook-signature: asymmetric-algorithm ${JSON.stringify(raw)} is not one of ${ASYMMETRIC_ALGORITHMS.join(', ')}`,
    );
    return undefined;
  }
  const encoding = encodingOf(ctx, child(loc, 'encoding'), v.encoding, 'base64');
  const framed = framing(ctx, loc, v);
  if (encoding === undefined || framed === undefined) return undefined;
  return { kind: 'asymmetric', header: v.header as string, algorithm, encoding, ...framed };
}

/** Fern's config object → a SignatureConfig, or undefined (with warnings) when it cannot be one. */
function fern(ctx: ParseContext, loc: Loc): SignatureConfig | undefined {
  const v = loc.value as Record<string, unknown>;
  if ((v.type !== 'hmac' && v.type !== 'asymmetric') || typeof v.header !== 'string' || v.header === '') {
    warn(
      ctx,
      loc,
      'signature_not_supported',
      'x-fern-webhook-signature: expected type hmac or asymmetric, with a header',
    );
    return undefined;
  }
  if (v.type === 'asymmetric') return fernAsymmetric(ctx, loc, v);
  const algorithm = algorithmOf(ctx, child(loc, 'algorithm'), v.algorithm, 'sha256');
  const encoding = encodingOf(ctx, child(loc, 'encoding'), v.encoding, 'base64');
  const framed = framing(ctx, loc, v);
  if (algorithm === undefined || encoding === undefined || framed === undefined) return undefined;
  const out: Hmac = { kind: 'hmac', header: v.header, algorithm, encoding, ...framed };
  return out;
}

export function fernDeclaration(
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
