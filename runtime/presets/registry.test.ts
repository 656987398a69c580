/** Every preset is registered under its own name and declares what docs/presets.md tabulates. */
import { describe, expect, it } from 'vitest';
import { RETRY_WINDOWS } from '../stores/retry-windows.js';
import { getProvider, isPresetName, providers } from './registry.js';
import type { PresetName } from './types.js';

const names = Object.keys(providers) as PresetName[];

describe('the preset registry', () => {
  it('has twenty-two presets, each under its own name', () => {
    expect(names).toHaveLength(22);
    for (const name of names) {
      const preset = getProvider(name);
      expect(preset.name).toBe(name);
      expect(preset.signature).toEqual({ kind: 'preset', preset: name });
      expect(isPresetName(name)).toBe(true);
    }
    expect(isPresetName('toString')).toBe(false);
  });

  it.each(names)('%s: its dedupe TTL is its retry window, and it declares its residual risk', (name) => {
    const preset = providers[name];
    expect(preset.dedupeTtlMs).toBe(RETRY_WINDOWS[name]);
    const { idSigned, timestampSigned, residualRisk } = preset.declared;
    expect(residualRisk !== undefined, 'a residual risk exactly when the id or timestamp is unsigned').toBe(
      !idSigned || !timestampSigned,
    );
  });
});
