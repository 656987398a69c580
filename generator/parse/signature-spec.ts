/**
 * A signature scheme written as text, for `--signature` and the config's `signatures`:
 * - `standard-webhooks`, `none`, or a preset name (`stripe`, `github`, `shopify`, `slack`,
 *   `twilio`, `discord`, `svix`);
 * - `hmac:<header>[,sha256|sha1|sha512][,hex|base64][,prefix=<text>][,timestamp=<header>]
 *   [,id=<header>][,signed=<template with {body}>]`, e.g.
 *   `hmac:X-Up-Authenticity-Signature,sha256,hex` or `hmac:X-Hub-Signature-256,hex,prefix=sha256=`.
 * An object is checked as a SignatureConfig. Bad text is an `invalid_argument` naming what was expected.
 */
import type { SignatureConfig } from '@gen-webhooks/runtime';
import { GeneratorError } from '../errors.js';

const PRESETS = ['stripe', 'github', 'shopify', 'slack', 'twilio', 'discord', 'svix'] as const;
const EXPECTED =
  'standard-webhooks, none, a preset (stripe, github, shopify, slack, twilio, discord, svix), or hmac:<header>[,sha256|sha1|sha512][,hex|base64][,prefix=…][,timestamp=<header>][,id=<header>][,signed=<template>]';

type Hmac = {
  -readonly [K in keyof Extract<SignatureConfig, { kind: 'hmac' }>]: Extract<
    SignatureConfig,
    { kind: 'hmac' }
  >[K];
};

function bad(what: string, text: string): GeneratorError {
  return new GeneratorError(
    'invalid_argument',
    `${what}: ${JSON.stringify(text)} is not a signature scheme`,
    {
      expected: EXPECTED,
    },
  );
}

export function parseSignatureSpec(text: string, what = 'signature'): SignatureConfig {
  const spec = text.trim();
  if (spec === 'standard-webhooks' || spec === 'none') return { kind: spec };
  if ((PRESETS as readonly string[]).includes(spec)) {
    return { kind: 'preset', preset: spec as (typeof PRESETS)[number] };
  }
  if (!spec.startsWith('hmac:')) throw bad(what, text);
  const [header, ...parts] = spec.slice('hmac:'.length).split(',');
  if (header === undefined || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) throw bad(what, text);
  const out: Hmac = { kind: 'hmac', header, algorithm: 'sha256', encoding: 'hex' };
  for (const part of parts) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    const value = eq < 0 ? '' : part.slice(eq + 1);
    if (key === 'sha256' || key === 'sha1' || key === 'sha512') out.algorithm = key;
    else if (key === 'hex' || key === 'base64') out.encoding = key;
    else if (key === 'prefix') out.prefix = value;
    else if (key === 'timestamp' && value !== '') out.timestampHeader = value;
    else if (key === 'id' && value !== '') out.idHeader = value;
    else if (key === 'signed' && value.includes('{body}')) out.signedContent = value;
    else throw bad(what, text);
  }
  return out;
}

/** A config value: text as above, or a SignatureConfig object (its kind checked). */
export function signatureFromConfig(value: unknown, what: string): SignatureConfig {
  if (typeof value === 'string') return parseSignatureSpec(value, what);
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const kind = (value as { kind?: unknown }).kind;
    if (
      kind === 'standard-webhooks' ||
      kind === 'none' ||
      kind === 'hmac' ||
      kind === 'asymmetric' ||
      kind === 'preset'
    ) {
      return value as SignatureConfig;
    }
  }
  throw new GeneratorError('invalid_config', `${what} is not a signature scheme`, { expected: EXPECTED });
}
