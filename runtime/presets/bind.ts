/**
 * One preset bound to one runtime's crypto: its descriptor plus `scheme(options)`. Kept apart from the
 * catalog so a bundle that binds one preset carries no other.
 */
import type { SignatureScheme } from '../signing/scheme.js';
import type { PresetCrypto } from './crypto.js';
import type { PresetName, PresetSchemeOptions, ProviderDescriptor, ProviderPreset } from './types.js';

export function bindPreset<N extends PresetName>(
  descriptor: ProviderDescriptor<N>,
  scheme: (options: PresetSchemeOptions, crypto: PresetCrypto) => SignatureScheme,
  crypto: PresetCrypto,
): ProviderPreset<N> {
  return { ...descriptor, scheme: (options) => scheme(options, crypto) };
}
