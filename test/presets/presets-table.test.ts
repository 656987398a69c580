/** docs/presets.md's table lists every preset, and its residual-risk column agrees with `declared`. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { providers } from '../../runtime/presets/index.js';
import type { PresetName } from '../../runtime/presets/types.js';

const doc = readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/presets.md'),
  'utf8',
);
const rows = new Map<string, string[]>();
for (const line of doc.split('\n')) {
  const match = /^\| `([a-z-]+)` +\|(.*)\|$/.exec(line);
  if (match !== null)
    rows.set(
      match[1] ?? '',
      (match[2] ?? '').split(' | ').map((cell) => cell.trim()),
    );
}

describe('docs/presets.md table', () => {
  it.each(Object.keys(providers) as PresetName[])(
    'has a %s row whose residual risk matches the preset',
    (name) => {
      const row = rows.get(name);
      expect(row, `a table row for ${name}`).toBeDefined();
      const risk = row?.at(-1) ?? '';
      const declared = providers[name].declared.residualRisk !== undefined;
      expect(risk.startsWith('none'), `${name}: "${risk}"`).toBe(!declared);
      // Handshakes are in the table exactly for the presets that declare some.
      const handshake = row?.at(-2) ?? '';
      expect(handshake === '—', `${name}: "${handshake}"`).toBe(
        providers[name].declared.handshakes.length === 0,
      );
    },
  );
});
