/**
 * The two forms of `eventValidators` (see validator-form.ts) hold the same JavaScript: validators.ts
 * is validators.js with the declaration of validators.d.ts on its export, nothing else.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/types/typecheck.js';
import { loadContract } from '../parse/index.js';
import { emitContract } from './index.js';

async function emit(validators: 'js' | 'ts') {
  const model = await loadContract(path.join(repoRoot, 'schemas/petstore.openapi.yaml'));
  return emitContract(model, {
    version: '0.0.0',
    source: 'p.yaml',
    runtimeImport: '@gen-webhooks/runtime',
    validators,
  }).files;
}

describe('validators.ts', () => {
  it('is validators.js under @ts-nocheck, its export typed as validators.d.ts types it', async () => {
    const js = await emit('js');
    const ts = await emit('ts');
    expect([...ts.keys()].filter((f) => f.startsWith('validators'))).toEqual(['validators.ts']);
    expect([...js.keys()].filter((f) => f.startsWith('validators'))).toEqual([
      'validators.js',
      'validators.d.ts',
    ]);
    const source = ts.get('validators.ts') ?? '';
    const lines = source.split('\n');
    expect(lines[1]).toMatch(/^\/\/ @ts-nocheck: /);
    const declared = /export declare const eventValidators: (\{[^}]*\});/.exec(
      js.get('validators.d.ts') ?? '',
    )?.[1];
    expect(declared).toContain('StandardSchemaV1<unknown, Events[K]>');
    // Strip the nocheck line, the type-only imports and the annotation: validators.js remains.
    const asJs = source
      .replace(/^\/\/ @ts-nocheck: .*\n/m, '')
      .replace(/^import type .*\n/gm, '')
      .replace(/\/\*\*\n \* The payload schema of every event \(Standard Schema\)[\s\S]*?\*\/\n/, '')
      .replace(`export const eventValidators: ${declared} = `, 'export const eventValidators = ');
    expect(asJs).toBe(
      (js.get('validators.js') ?? '').replace(
        '/** The payload schema of every event, for the contract (see validators.d.ts). */\n',
        '',
      ),
    );
    // Everything else is the same in both forms.
    for (const [file, text] of js) if (!file.startsWith('validators')) expect(ts.get(file)).toBe(text);
  });
});
