/**
 * The delivery config of a contract (signature, envelope, selector) checked as the runtime would
 * check a hand-written contract's when its receiver is created: a generated Web receiver trusts its
 * contract's config and carries none of those checks (runtime/receive/check-contract.ts,
 * `compileHmacConfig`), so a config that makes no sense must stop here, naming where it was declared.
 * runtime/receive/check-contract.test.ts keeps the two sets of rules equal.
 */
import type { EnvelopeConfig, SelectorConfig, SignatureConfig } from '@gen-webhooks/runtime';
import { GeneratorError } from '../errors.js';

/** Where each part was declared: a pointer into `file` (`x-gen-webhooks`), or how it was derived. */
export interface DeliveryOrigin {
  readonly file: string;
  readonly signature?: string;
  readonly envelope?: string;
}

interface Delivery {
  readonly signature: SignatureConfig;
  readonly envelope: EnvelopeConfig;
  readonly selector: SelectorConfig;
}

/** RFC 9110 `token`: what a header name may be. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const META = ['id', 'type', 'timestamp'];

function failure(origin: DeliveryOrigin, part: 'signature' | 'envelope', message: string, expected: string) {
  const pointer = origin[part];
  return new GeneratorError(pointer === undefined ? 'invalid_document' : 'invalid_extension', message, {
    file: origin.file,
    ...(pointer === undefined ? {} : { pointer }),
    expected,
  });
}

function checkHmac(config: Extract<SignatureConfig, { kind: 'hmac' }>, origin: DeliveryOrigin): void {
  const fail = (message: string, expected: string) =>
    failure(origin, 'signature', `hmac signature: ${message}`, expected);
  if (!['sha256', 'sha1', 'sha512'].includes(config.algorithm)) {
    throw fail(`algorithm ${JSON.stringify(config.algorithm)} is not supported`, 'sha256, sha1 or sha512');
  }
  if (config.encoding !== 'hex' && config.encoding !== 'base64') {
    throw fail(`encoding ${JSON.stringify(config.encoding)} is not supported`, 'hex or base64');
  }
  for (const field of ['header', 'timestampHeader', 'idHeader'] as const) {
    const value = config[field];
    if (value !== undefined && (typeof value !== 'string' || !HEADER_NAME.test(value))) {
      throw fail(
        `${field} ${JSON.stringify(value)} is not a header name`,
        'a header name such as X-Signature',
      );
    }
  }
  if (config.prefix !== undefined && (typeof config.prefix !== 'string' || config.prefix.includes(','))) {
    throw fail(`prefix ${JSON.stringify(config.prefix)} contains a comma`, 'a prefix without commas');
  }
  if (config.signedContent === undefined) return;
  const placeholders: readonly string[] = config.signedContent.match(/\{[^{}]*\}/g) ?? [];
  const unknown = placeholders.find((p) => p !== '{body}' && p !== '{timestamp}' && p !== '{id}');
  if (unknown !== undefined) {
    throw fail(`unknown placeholder ${unknown} in signedContent`, 'only {body}, {timestamp} and {id}');
  }
  if (placeholders.filter((p) => p === '{body}').length !== 1) {
    throw fail('signedContent must contain {body} exactly once', 'one {body} placeholder');
  }
  if (placeholders.includes('{timestamp}') && config.timestampHeader === undefined) {
    throw fail('signedContent uses {timestamp} but timestampHeader is not set', 'a timestampHeader');
  }
  if (placeholders.includes('{id}') && config.idHeader === undefined) {
    throw fail('signedContent uses {id} but idHeader is not set', 'an idHeader');
  }
}

function checkEnvelope(
  config: Extract<EnvelopeConfig, { kind: 'envelope' }>,
  selector: SelectorConfig,
  origin: DeliveryOrigin,
): void {
  const fail = (message: string, expected: string) =>
    failure(origin, 'envelope', `envelope: ${message}`, expected);
  for (const key of ['absent', 'optional'] as const) {
    const list: unknown = config[key];
    if (list !== undefined && (!Array.isArray(list) || list.some((f) => !META.includes(f)))) {
      throw fail(`${key} must list some of id, type, timestamp`, 'a list of id, type, timestamp');
    }
  }
  const format = config.timestampFormat ?? 'iso';
  if (!['iso', 'unix', 'unix-ms'].includes(format)) {
    throw fail(`timestampFormat ${JSON.stringify(format)} is not supported`, 'iso, unix or unix-ms');
  }
  const absent = new Set<string>(config.absent ?? []);
  const f = config.fields ?? {};
  const used: [string, unknown][] = [
    ['id', f.id ?? 'id'],
    ['type', f.type ?? 'type'],
    ['timestamp', f.timestamp ?? 'timestamp'],
  ];
  const names = [
    ...used.filter(([which]) => !absent.has(which)),
    ['data', f.data ?? 'data'] as [string, unknown],
    ...(f.apiVersion !== undefined || config.apiVersion !== undefined
      ? [['apiVersion', f.apiVersion ?? 'apiVersion'] as [string, unknown]]
      : []),
  ];
  const seen = new Map<unknown, string>();
  for (const [which, name] of names) {
    if (typeof name !== 'string' || name === '') {
      throw fail(`the ${which} field name must be a non-empty string`, 'a non-empty field name');
    }
    const other = seen.get(name);
    if (other !== undefined) {
      throw fail(
        `the ${other} and ${which} fields are both "${name}"`,
        'distinct field names for id, type, timestamp, data and apiVersion',
      );
    }
    seen.set(name, which);
  }
  if (selector.kind === 'envelope-type' && absent.has('type')) {
    throw fail(
      'the envelope-type selector needs an envelope type field, and type is listed as absent',
      'a type field, or another selector (body, header, schema)',
    );
  }
}

/** Throws a `GeneratorError` for a delivery config the runtime would refuse. */
export function checkDelivery(delivery: Delivery, origin: DeliveryOrigin): void {
  if (delivery.signature.kind === 'hmac') checkHmac(delivery.signature, origin);
  if (delivery.envelope.kind === 'envelope') checkEnvelope(delivery.envelope, delivery.selector, origin);
}
