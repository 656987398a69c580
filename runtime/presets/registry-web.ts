/** The provider map on Web Crypto (no `node:*` import; Twilio answers `invalid_config`) and `createPresetScheme` (what `SignatureConfig` kind `preset` resolves to). */
import type { SignatureScheme } from '../signing/scheme.js';
import { bindProviders, getDescriptor, type Providers } from './catalog.js';
import { webPresetCrypto } from './crypto-web.js';
import type { PresetName, PresetSchemeOptions, ProviderPreset } from './types.js';

export { isPresetName } from './catalog.js';

export const providers: Providers = /* @__PURE__ */ bindProviders(webPresetCrypto);

export function getProvider<N extends PresetName>(name: N): ProviderPreset<N> {
  getDescriptor(name);
  return providers[name] as ProviderPreset<N>;
}

export function createPresetScheme(name: PresetName, options: PresetSchemeOptions): SignatureScheme {
  return getProvider(name).scheme(options);
}
