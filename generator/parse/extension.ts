/**
 * The `x-gen-webhooks` document extension (docs/extensions.md), validated strictly against the
 * runtime's config types: unknown keys, wrong kinds and out-of-range numbers are `invalid_extension`
 * errors that name the pointer and what was expected.
 */
import type {
  BackoffConfig,
  EnvelopeConfig,
  EnvelopeMetaField,
  HandshakeConfig,
  JitterConfig,
  SelectorConfig,
  SignatureConfig,
} from '@gen-webhooks/runtime';
import { child, type Loc } from '../load/document-store.js';
import { readHandshakes } from './extension-handshakes.js';
import {
  ASYMMETRIC_ALGORITHMS,
  type Asymmetric,
  EXTENSION_KEY,
  fail,
  number,
  object,
  oneOf,
  onlyKeys,
  optionalText,
  text,
} from './extension-values.js';

export { EXTENSION_KEY };

export interface RootExtension {
  readonly signature?: SignatureConfig;
  readonly envelope?: EnvelopeConfig;
  readonly selector?: SelectorConfig;
  readonly retry?: BackoffConfig;
  readonly handshakes?: readonly HandshakeConfig[];
}

export interface EventExtension {
  readonly event?: string;
  readonly match?: { readonly header?: string; readonly body?: string };
}

export const DEFAULT_SIGNATURE: SignatureConfig = { kind: 'standard-webhooks' };
export const DEFAULT_ENVELOPE: EnvelopeConfig = { kind: 'envelope' };
export const DEFAULT_SELECTOR: SelectorConfig = { kind: 'envelope-type' };

const PRESETS = [
  'stripe',
  'github',
  'shopify',
  'slack',
  'twilio',
  'discord',
  'svix',
  'zoom',
  'twitch',
  'meta',
  'microsoft-graph',
  'azure-event-grid',
  'square',
  'paddle',
  'lemon-squeezy',
  'linear',
  'intercom',
  'hubspot',
  'mailgun',
  'sendgrid',
  'plaid',
  'okta',
] as const;

function signature(loc: Loc): SignatureConfig {
  const value = object(loc, 'signature');
  const kind = oneOf(
    child(loc, 'kind'),
    ['standard-webhooks', 'hmac', 'asymmetric', 'preset', 'none'] as const,
    'signature kind',
  );
  switch (kind) {
    case 'standard-webhooks':
    case 'none':
      onlyKeys(loc, value, ['kind'], `a "${kind}" signature`);
      return { kind };
    case 'preset':
      onlyKeys(loc, value, ['kind', 'preset'], 'a "preset" signature');
      return { kind, preset: oneOf(child(loc, 'preset'), PRESETS, 'signature preset') };
    case 'asymmetric': {
      onlyKeys(
        loc,
        value,
        ['kind', 'header', 'algorithm', 'encoding', 'prefix', 'timestampHeader', 'signedContent'],
        'an "asymmetric" signature',
      );
      const out: { -readonly [K in keyof Asymmetric]: Asymmetric[K] } = {
        kind,
        header: text(child(loc, 'header'), 'signature header'),
        algorithm: oneOf(child(loc, 'algorithm'), ASYMMETRIC_ALGORITHMS, 'signature algorithm'),
        encoding: oneOf(child(loc, 'encoding'), ['hex', 'base64'] as const, 'signature encoding'),
      };
      if (value.prefix !== undefined) {
        if (typeof value.prefix !== 'string')
          fail(child(loc, 'prefix'), 'prefix must be a string', 'a string');
        out.prefix = value.prefix;
      }
      const timestampHeader = optionalText(child(loc, 'timestampHeader'), 'timestampHeader');
      if (timestampHeader !== undefined) out.timestampHeader = timestampHeader;
      const signedContent = optionalText(child(loc, 'signedContent'), 'signedContent');
      if (signedContent !== undefined) {
        if (!signedContent.includes('{body}')) {
          fail(
            child(loc, 'signedContent'),
            'signedContent must include {body}',
            'a template containing {body}',
          );
        }
        out.signedContent = signedContent;
      }
      return out;
    }
    case 'hmac': {
      const keys = [
        'kind',
        'header',
        'algorithm',
        'encoding',
        'prefix',
        'timestampHeader',
        'idHeader',
        'signedContent',
      ];
      onlyKeys(loc, value, keys, 'an "hmac" signature');
      const out: {
        kind: 'hmac';
        header: string;
        algorithm: 'sha256' | 'sha1' | 'sha512';
        encoding: 'hex' | 'base64';
        prefix?: string;
        timestampHeader?: string;
        idHeader?: string;
        signedContent?: string;
      } = {
        kind,
        header: text(child(loc, 'header'), 'signature header'),
        algorithm: oneOf(
          child(loc, 'algorithm'),
          ['sha256', 'sha1', 'sha512'] as const,
          'signature algorithm',
        ),
        encoding: oneOf(child(loc, 'encoding'), ['hex', 'base64'] as const, 'signature encoding'),
      };
      if (value.prefix !== undefined) {
        if (typeof value.prefix !== 'string')
          fail(child(loc, 'prefix'), 'prefix must be a string', 'a string');
        out.prefix = value.prefix;
      }
      const timestampHeader = optionalText(child(loc, 'timestampHeader'), 'timestampHeader');
      if (timestampHeader !== undefined) out.timestampHeader = timestampHeader;
      const idHeader = optionalText(child(loc, 'idHeader'), 'idHeader');
      if (idHeader !== undefined) out.idHeader = idHeader;
      const signedContent = optionalText(child(loc, 'signedContent'), 'signedContent');
      if (signedContent !== undefined) {
        if (!signedContent.includes('{body}')) {
          fail(
            child(loc, 'signedContent'),
            'signedContent must include {body}',
            'a template containing {body}',
          );
        }
        out.signedContent = signedContent;
      }
      return out;
    }
  }
}

function envelope(loc: Loc): EnvelopeConfig {
  const value = object(loc, 'envelope');
  const kind = oneOf(child(loc, 'kind'), ['envelope', 'bare'] as const, 'envelope kind');
  if (kind === 'bare') {
    onlyKeys(loc, value, ['kind'], 'a "bare" envelope');
    return { kind };
  }
  onlyKeys(
    loc,
    value,
    ['kind', 'fields', 'apiVersion', 'timestampFormat', 'absent', 'optional'],
    'an "envelope" envelope',
  );
  const out: {
    kind: 'envelope';
    fields?: Record<string, string>;
    apiVersion?: string;
    timestampFormat?: 'iso' | 'unix' | 'unix-ms';
    absent?: EnvelopeMetaField[];
    optional?: EnvelopeMetaField[];
  } = { kind };
  if (value.fields !== undefined) {
    const fieldsLoc = child(loc, 'fields');
    const fields = object(fieldsLoc, 'envelope fields');
    const names = ['id', 'type', 'timestamp', 'data', 'apiVersion'];
    onlyKeys(fieldsLoc, fields, names, 'envelope fields');
    const picked: Record<string, string> = {};
    for (const name of names) {
      const field = optionalText(child(fieldsLoc, name), `envelope field ${name}`);
      if (field !== undefined) picked[name] = field;
    }
    out.fields = picked;
  }
  const apiVersion = optionalText(child(loc, 'apiVersion'), 'apiVersion');
  if (apiVersion !== undefined) out.apiVersion = apiVersion;
  if (value.timestampFormat !== undefined) {
    out.timestampFormat = oneOf(
      child(loc, 'timestampFormat'),
      ['iso', 'unix', 'unix-ms'] as const,
      'timestampFormat',
    );
  }
  for (const key of ['absent', 'optional'] as const) {
    const listLoc = child(loc, key);
    if (listLoc.value === undefined) continue;
    if (!Array.isArray(listLoc.value))
      fail(listLoc, `${key} must be a list`, 'a list of id, type, timestamp');
    out[key] = listLoc.value.map((_, i) =>
      oneOf(child(listLoc, i), ['id', 'type', 'timestamp'] as const, `${key} field`),
    );
  }
  return out as EnvelopeConfig;
}

function selector(loc: Loc): SelectorConfig {
  const value = object(loc, 'selector');
  const kind = oneOf(
    child(loc, 'kind'),
    ['envelope-type', 'body', 'header', 'schema'] as const,
    'selector kind',
  );
  switch (kind) {
    case 'schema':
      onlyKeys(loc, value, ['kind'], 'a "schema" selector');
      return { kind };
    case 'envelope-type':
      onlyKeys(loc, value, ['kind'], 'an "envelope-type" selector');
      return { kind };
    case 'body':
      onlyKeys(loc, value, ['kind', 'field', 'fallback'], 'a "body" selector');
      return value.fallback === undefined
        ? { kind, field: text(child(loc, 'field'), 'selector field') }
        : {
            kind,
            field: text(child(loc, 'field'), 'selector field'),
            fallback: oneOf(child(loc, 'fallback'), ['schema'] as const, 'selector fallback'),
          };
    case 'header': {
      onlyKeys(loc, value, ['kind', 'header', 'bodyField'], 'a "header" selector');
      const header = text(child(loc, 'header'), 'selector header');
      const bodyField = optionalText(child(loc, 'bodyField'), 'selector bodyField');
      return bodyField === undefined ? { kind, header } : { kind, header, bodyField };
    }
  }
}

function jitter(loc: Loc): JitterConfig {
  const value = object(loc, 'jitter');
  const kind = oneOf(child(loc, 'kind'), ['none', 'full', 'percent'] as const, 'jitter kind');
  if (kind === 'percent') {
    onlyKeys(loc, value, ['kind', 'percent'], 'a "percent" jitter');
    return { kind, percent: number(child(loc, 'percent'), 'jitter percent', 0, { max: 100 }) };
  }
  onlyKeys(loc, value, ['kind'], `a "${kind}" jitter`);
  return { kind };
}

function retry(loc: Loc): BackoffConfig {
  const value = object(loc, 'retry');
  const kind = oneOf(child(loc, 'kind'), ['exponential', 'list'] as const, 'retry kind');
  const withJitter = <T extends object>(config: T): T & { jitter?: JitterConfig } =>
    value.jitter === undefined ? config : { ...config, jitter: jitter(child(loc, 'jitter')) };
  if (kind === 'list') {
    onlyKeys(loc, value, ['kind', 'delays', 'jitter'], 'a "list" retry');
    const delaysLoc = child(loc, 'delays');
    if (!Array.isArray(delaysLoc.value) || delaysLoc.value.length === 0) {
      fail(delaysLoc, 'delays must be a non-empty list', 'a non-empty list of delays in seconds');
    }
    const delays = delaysLoc.value.map((_, i) => number(child(delaysLoc, i), 'delay', 0));
    return withJitter({ kind, delays });
  }
  onlyKeys(
    loc,
    value,
    ['kind', 'initialDelay', 'factor', 'maxDelay', 'maxAttempts', 'jitter'],
    'an "exponential" retry',
  );
  const initialDelay = number(child(loc, 'initialDelay'), 'initialDelay', 0);
  const factor = number(child(loc, 'factor'), 'factor', 1);
  const maxDelay = number(child(loc, 'maxDelay'), 'maxDelay', initialDelay);
  const maxAttempts = number(child(loc, 'maxAttempts'), 'maxAttempts', 1, { integer: true });
  return withJitter({ kind, initialDelay, factor, maxDelay, maxAttempts });
}

/** Reads the root `x-gen-webhooks` of a document (`loc` = the document root). */
export function readRootExtension(root: Loc): RootExtension {
  const loc = child(root, EXTENSION_KEY);
  if (loc.value === undefined) return {};
  const value = object(loc, EXTENSION_KEY);
  onlyKeys(loc, value, ['signature', 'envelope', 'selector', 'retry', 'handshakes'], 'the root extension');
  const out: {
    signature?: SignatureConfig;
    envelope?: EnvelopeConfig;
    selector?: SelectorConfig;
    retry?: BackoffConfig;
    handshakes?: readonly HandshakeConfig[];
  } = {};
  if (value.signature !== undefined) out.signature = signature(child(loc, 'signature'));
  if (value.envelope !== undefined) out.envelope = envelope(child(loc, 'envelope'));
  if (value.selector !== undefined) out.selector = selector(child(loc, 'selector'));
  if (value.retry !== undefined) out.retry = retry(child(loc, 'retry'));
  if (value.handshakes !== undefined) {
    const handshakesLoc = child(loc, 'handshakes');
    if (out.signature?.kind === 'preset') {
      fail(
        handshakesLoc,
        `handshakes cannot be declared with the "${out.signature.preset}" preset, which answers its provider's own`,
        'no handshakes beside a preset signature',
      );
    }
    out.handshakes = readHandshakes(handshakesLoc);
  }
  return out;
}

/** Reads `x-gen-webhooks` on an operation or message (`loc` = the operation/message). */
export function readEventExtension(owner: Loc): EventExtension {
  const loc = child(owner, EXTENSION_KEY);
  if (loc.value === undefined) return {};
  const value = object(loc, EXTENSION_KEY);
  onlyKeys(loc, value, ['event', 'match'], 'an operation or message extension');
  const out: { event?: string; match?: { header?: string; body?: string } } = {};
  const event = optionalText(child(loc, 'event'), 'event');
  if (event !== undefined) out.event = event;
  if (value.match !== undefined) {
    const matchLoc = child(loc, 'match');
    const match = object(matchLoc, 'match');
    onlyKeys(matchLoc, match, ['header', 'body'], 'match');
    const picked: { header?: string; body?: string } = {};
    const header = optionalText(child(matchLoc, 'header'), 'match header');
    if (header !== undefined) picked.header = header;
    const body = optionalText(child(matchLoc, 'body'), 'match body');
    if (body !== undefined) picked.body = body;
    out.match = picked;
  }
  return out;
}
