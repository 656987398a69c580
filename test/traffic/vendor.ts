/**
 * What a vendor's documentation says about its deliveries, written down once per corpus entry
 * (test/traffic/vendors/*.ts): how a delivery is signed and which headers come with it, where the
 * payload sits in the body, and how a body is built for an event the spec gives no example of.
 * Signers here are written from the vendors' documents with node:crypto, not with the runtime's
 * schemes, so a receiver that accepts them agrees with the vendor rather than with itself.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { SignatureConfig } from '../../runtime/contract.js';
import type { Secret } from '../../runtime/signing/scheme.js';

export interface Delivery {
  /** The event name in the generated contract. */
  readonly event: string;
  /** Unix seconds at sending time. */
  readonly timestamp: number;
}

export interface Vendor {
  readonly name: string;
  /** The vendor's documentation of its deliveries (envelope, headers, signature). */
  readonly docs: readonly string[];
  /** Corpus files (relative to the corpus root) whose deliveries this describes. */
  readonly files: (file: string) => boolean;
  /**
   * The signature scheme to generate with, when the published spec does not declare it (a
   * per-contract override, as a user would configure it); undefined: the generator's own choice.
   */
  readonly signature?: SignatureConfig;
  /** What the receiver is configured with (the vendor's secret as it hands it out). */
  readonly secret: Secret | undefined;
  /** Headers of one delivery of `body` (signature, id and timestamp headers, event headers). */
  headers(body: string, delivery: Delivery): Record<string, string>;
  /** The delivery id the receiver should report, from the headers or the body. */
  deliveryId?(headers: Record<string, string>, body: unknown): string | undefined;
  /** Where the payload sits in the vendor's body: `data`, or the whole body (`bare`). */
  readonly payload: 'data' | 'bare';
  /**
   * A body for an event without a spec example, around a payload synthesised by the generated
   * fixtures (`whole`: that payload is already the whole body, the contract being bare).
   */
  wrap(payload: unknown, event: string, whole: boolean, file: string): unknown;
  /** Bodies the vendor documents outside the spec's example fields, per event (`file`: absolute). */
  examples?(file: string, event: string): readonly unknown[];
  /** Spec examples the vendor's own spec gets wrong, keyed `<file> <event> <index>`, with the reason. */
  readonly specErrors?: Readonly<Record<string, string>>;
}

export function hmacHex(key: Secret, text: string, algorithm = 'sha256'): string {
  return createHmac(algorithm, key).update(text, 'utf8').digest('hex');
}

export function hmacBase64(key: Secret, text: string, algorithm = 'sha256'): string {
  return createHmac(algorithm, key).update(text, 'utf8').digest('base64');
}

/**
 * Standard Webhooks, as its specification writes it
 * (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md):
 * `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64>` where the
 * base64 is HMAC-SHA256 over `<id>.<timestamp>.<body>` keyed with the base64 part of `whsec_…`.
 */
export function standardWebhooksHeaders(
  secret: string,
  body: string,
  timestamp: number,
  prefix = 'webhook',
): Record<string, string> {
  const id = `msg_${randomUUID().replaceAll('-', '')}`;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return {
    'content-type': 'application/json',
    [`${prefix}-id`]: id,
    [`${prefix}-timestamp`]: String(timestamp),
    [`${prefix}-signature`]: `v1,${hmacBase64(key, `${id}.${timestamp}.${body}`)}`,
  };
}
