/**
 * The option keys a preset's scheme takes (known-options.ts): the `SchemeOptions` every scheme takes
 * plus the provider-specific `PresetOptions` (any preset's: each reads only its own), tied to their
 * types so a new option missing here fails `tsc`. Each preset's scheme checks its options first, so
 * `preset.scheme(…)`, `createPresetScheme` and a receiver's `preset` options are all checked.
 */
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import type { PresetName, PresetOptions, PresetSchemeOptions } from './types.js';

const PRESET_SCHEME_KEYS = {
  secret: true,
  tolerance: true,
  now: true,
  publicKey: true,
  legacySha1: true,
  algorithm: true,
  publicUrl: true,
  verifyToken: true,
  onRevocation: true,
  onLifecycle: true,
  authHeader: true,
  secretIn: true,
  allowedOrigins: true,
  allowedRate: true,
  getKey: true,
  signingKey: true,
  keyId: true,
  clientId: true,
  environment: true,
  maxAge: true,
  headerPrefix: true,
} as const satisfies KnownKeys<PresetSchemeOptions>;

const SECRET_IN_KEYS = { query: true, header: true } as const satisfies KnownKeys<
  NonNullable<PresetOptions['secretIn']>
>;

/** `invalid_config` naming the first unknown key of a preset scheme's options (or of its `secretIn`). */
export function checkPresetOptions(preset: PresetName, options: PresetSchemeOptions): void {
  checkKnownOptions(preset, options, PRESET_SCHEME_KEYS);
  checkKnownOptions(preset, options?.secretIn, SECRET_IN_KEYS, undefined, 'secretIn');
}
