/** What the vendor dialects share: what they declare, and their algorithm and encoding names → the runtime's HMAC ones. */
import type { SelectorConfig, SignatureConfig } from '@gen-webhooks/runtime';
import type { Loc } from '../load/document-store.js';
import { type ParseContext, warn } from './context.js';

export type Hmac = Extract<SignatureConfig, { kind: 'hmac' }>;
export type Algorithm = Hmac['algorithm'];

export function algorithmOf(
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

export function encodingOf(
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

export interface VendorDeclarations {
  readonly signature?: SignatureConfig;
  readonly selector?: SelectorConfig;
  /** `match.body` per event name (APIMatic discriminator mapping). */
  readonly matches?: ReadonlyMap<string, string>;
}
