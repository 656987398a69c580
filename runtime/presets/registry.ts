/** The provider map on node:crypto and `createPresetScheme` (what `SignatureConfig` kind `preset` resolves to). */
import type { SignatureScheme } from '../signing/scheme.js';
import { bindProviders, getDescriptor, type Providers } from './catalog.js';
import { nodePresetCrypto } from './crypto-node.js';
import type { PresetName, PresetSchemeOptions, ProviderPreset } from './types.js';

export { isPresetName } from './catalog.js';

export const providers: Providers = /* @__PURE__ */ bindProviders(nodePresetCrypto);

export function getProvider<N extends PresetName>(name: N): ProviderPreset<N> {
  getDescriptor(name);
  return providers[name] as ProviderPreset<N>;
}

export function createPresetScheme(name: PresetName, options: PresetSchemeOptions): SignatureScheme {
  return getProvider(name).scheme(options);
}
