/**
 * Speakeasy `x-speakeasy-webhooks.security`: `signature` (`headerName`, `signatureTextEncoding`,
 * `algorithm: hmac-sha256`) or `signatureStandardWebhooks`.
 */
import type { SignatureConfig } from '@gen-webhooks/runtime';
import { child, isRecord, type Loc } from '../load/document-store.js';
import { type ParseContext, warn } from './context.js';
import { algorithmOf, encodingOf } from './vendor-hmac.js';

export function speakeasy(ctx: ParseContext, root: Loc): SignatureConfig | undefined {
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
