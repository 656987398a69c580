/**
 * `@gen-webhooks/runtime/generated`, the entry generated modules import under `--runtime package`:
 * every name a generated file can import is there, on the Node build (runtime/generated.ts) and the
 * Web build (runtime/generated-web.ts) alike, each the very object the matching root entry exports
 * (index.ts, web.ts), so a generated module behaves the same whichever entry an app also imports.
 */
import { describe, expect, it } from 'vitest';
import { INDEX_RUNTIME_VALUES } from '../generator/emit/index-file.js';
import { presetExport, receiverParts } from '../generator/emit/receiver-file.js';
import type { ContractModel } from '../generator/model.js';
import * as nodeGenerated from '../runtime/generated.js';
import * as webGenerated from '../runtime/generated-web.js';
import * as node from '../runtime/index.js';
import * as web from '../runtime/web.js';

/** The values generated files import, whatever the contract: the fixed ones and every signature part. */
function importedValues(): string[] {
  const names = new Set<string>([
    'createParserWith',
    'createReceiverWith',
    'createSender',
    ...INDEX_RUNTIME_VALUES,
  ]);
  const models: Partial<ContractModel>[] = [
    ...(['standard-webhooks', 'hmac', 'none', 'asymmetric'] as const).map((kind) => ({
      signature: { kind } as ContractModel['signature'],
      envelope: { kind: 'bare' } as ContractModel['envelope'],
      bodies: {} as NonNullable<ContractModel['bodies']>,
      handshakes: [{}] as unknown as ContractModel['handshakes'],
      selector: { kind: 'header' } as ContractModel['selector'],
      events: [],
    })),
    // A contract that chooses its event by the payload's schema.
    {
      signature: { kind: 'hmac' } as ContractModel['signature'],
      envelope: { kind: 'bare' } as ContractModel['envelope'],
      selector: { kind: 'schema' },
      events: [],
    },
    ...Object.keys(node.providers).map((preset) => ({
      signature: { kind: 'preset', preset } as ContractModel['signature'],
      envelope: { kind: 'envelope' } as ContractModel['envelope'],
      selector: { kind: 'body' } as ContractModel['selector'],
      events: [],
    })),
  ];
  for (const model of models) {
    for (const name of receiverParts(model as ContractModel).imports) names.add(name);
  }
  return [...names].sort();
}

describe('the runtime entry for generated code', () => {
  const values = importedValues();

  it('covers every preset and optional part a generated receiver can import', () => {
    expect(values).toContain(presetExport('microsoft-graph'));
    expect(values).toEqual(
      expect.arrayContaining([
        'ackFastQueue',
        'contractHandshakes',
        'decodeBody',
        'envelopeReader',
        'headerSelector',
        'schemaSelector',
      ]),
    );
  });

  it('exports the same names on Node and on the Web, and nothing generated files do not import', () => {
    expect(Object.keys(nodeGenerated).sort()).toEqual(values);
    expect(Object.keys(webGenerated).sort()).toEqual(values);
  });

  it.each([
    ['Node', nodeGenerated, node],
    ['Web', webGenerated, web],
  ] as const)('on %s, each export is the root entry’s own', (_, generated, root) => {
    for (const name of values) {
      expect(generated[name as keyof typeof generated], name).toBe(root[name as keyof typeof root]);
    }
  });
});
