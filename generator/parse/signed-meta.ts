/**
 * Which envelope facts a signature scheme carries in headers it signs: a delivery id (Standard
 * Webhooks `webhook-id`, Svix) and a timestamp (Standard Webhooks, Stripe's `t=`, Slack, Discord,
 * an HMAC scheme with a signed timestamp header). Where the scheme signs them, envelope derivation
 * takes them from there and never demands them from the body.
 */
import type { SignatureConfig } from '@gen-webhooks/runtime';

export interface SignedMeta {
  /** Header carrying a signed delivery id, if the scheme has one. */
  readonly id?: string;
  /** Header (or header part) carrying a signed timestamp, if the scheme has one. */
  readonly timestamp?: string;
}

const PRESETS: Readonly<Record<string, SignedMeta>> = {
  svix: { id: 'svix-id', timestamp: 'svix-timestamp' },
  stripe: { timestamp: 'Stripe-Signature t=' },
  slack: { timestamp: 'X-Slack-Request-Timestamp' },
  discord: { timestamp: 'X-Signature-Timestamp' },
  github: {},
  shopify: {},
  twilio: {},
};

export function signedMeta(signature: SignatureConfig): SignedMeta {
  switch (signature.kind) {
    case 'standard-webhooks':
      return { id: 'webhook-id', timestamp: 'webhook-timestamp' };
    case 'hmac': {
      const content = signature.signedContent;
      const out: { id?: string; timestamp?: string } = {};
      if (signature.idHeader !== undefined && content?.includes('{id}')) out.id = signature.idHeader;
      if (
        signature.timestampHeader !== undefined &&
        (content === undefined || content.includes('{timestamp}'))
      ) {
        out.timestamp = signature.timestampHeader;
      }
      return out;
    }
    case 'asymmetric':
      // Default content `{body}`: the timestamp header is signed only when the template names it.
      return signature.timestampHeader !== undefined && signature.signedContent?.includes('{timestamp}')
        ? { timestamp: signature.timestampHeader }
        : {};
    case 'preset':
      return PRESETS[signature.preset] ?? {};
    default:
      return {};
  }
}
