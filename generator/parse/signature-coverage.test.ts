import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SignatureConfig } from '@gen-webhooks/runtime';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { unsignedIdHeader } from '../../runtime/signing/hmac-scheme-core.js';
import { loadContract, loadContracts } from './index.js';
import { type ContractParts, signatureCoverage } from './signature-coverage.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-coverage-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type HmacConfig = Extract<SignatureConfig, { kind: 'hmac' }>;
const HMAC: HmacConfig = {
  kind: 'hmac',
  header: 'X-Sig',
  algorithm: 'sha256',
  encoding: 'hex',
  timestampHeader: 'X-Ts',
  idHeader: 'X-Id',
};
const parts = (over: Partial<ContractParts>): ContractParts => ({
  signature: HMAC,
  envelope: { kind: 'envelope' },
  selector: { kind: 'envelope-type' },
  ...over,
});
const codes = (found: readonly { level: string; code: string }[]) => found.map((d) => `${d.level}:${d.code}`);

describe('signatureCoverage', () => {
  it('is silent when the id and the type come from signed content', () => {
    expect(signatureCoverage('a.yaml', parts({}), {})).toEqual([]);
    expect(signatureCoverage('a.yaml', parts({ signature: { kind: 'standard-webhooks' } }), {})).toEqual([]);
    const bare = parts({ envelope: { kind: 'bare' }, selector: { kind: 'body', field: 'type' } });
    expect(signatureCoverage('a.yaml', { ...bare, signature: { ...HMAC, idHeader: undefined } }, {})).toEqual(
      [],
    );
    expect(
      signatureCoverage('a.yaml', parts({ signature: { kind: 'preset', preset: 'stripe' } }), {}),
    ).toEqual([]);
  });

  it('warns about an id header outside signedContent, naming the fallback', () => {
    const unsigned = { ...HMAC, signedContent: '{timestamp}.{body}' };
    const [envelope] = signatureCoverage('a.yaml', parts({ signature: unsigned }), { signature: unsigned });
    expect(envelope).toMatchObject({
      level: 'warning',
      code: 'unsigned_id',
      file: 'a.yaml',
      pointer: '/x-gen-webhooks/signature/signedContent',
    });
    expect(envelope?.message).toMatch(
      /"X-Id" is not covered .* envelope id .* refuse a header that disagrees/,
    );
    const [bare] = signatureCoverage(
      'a.yaml',
      parts({ signature: unsigned, envelope: { kind: 'bare' } }),
      {},
    );
    expect(bare?.message).toMatch(/SHA-256 of the body/);
    expect(bare?.pointer).toBeUndefined();
  });

  it('warns about a header selector, and a contract without signature', () => {
    const selector = { kind: 'header', header: 'X-Event' } as const;
    expect(signatureCoverage('a.yaml', parts({ selector }), { selector })).toEqual([
      expect.objectContaining({
        level: 'warning',
        code: 'unsigned_type',
        pointer: '/x-gen-webhooks/selector/header',
      }),
    ]);
    expect(codes(signatureCoverage('a.yaml', parts({ signature: { kind: 'none' }, selector }), {}))).toEqual([
      'warning:unsigned_contract',
    ]);
  });

  it("reports a preset's unsigned delivery id and type header as info", () => {
    const github = parts({
      signature: { kind: 'preset', preset: 'github' },
      envelope: { kind: 'bare' },
      selector: { kind: 'header', header: 'X-GitHub-Event', bodyField: 'action' },
    });
    expect(codes(signatureCoverage('g.json', github, {}))).toEqual([
      'info:unsigned_id',
      'info:unsigned_type',
    ]);
    for (const preset of ['shopify', 'twilio'] as const) {
      const found = signatureCoverage('s.yaml', parts({ signature: { kind: 'preset', preset } }), {});
      expect(codes(found)).toEqual(['info:unsigned_id']);
    }
  });

  it('agrees with the runtime on which id headers are signed (property)', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.boolean(),
        fc.option(fc.constantFrom('{body}', '{id}.{body}', '{timestamp}.{body}', '{id}{timestamp}{body}'), {
          nil: undefined,
        }),
        (id, timestamp, signedContent) => {
          const config: HmacConfig = {
            kind: 'hmac',
            header: 'X-Sig',
            algorithm: 'sha256',
            encoding: 'hex',
            ...(id ? { idHeader: 'X-Id' } : {}),
            ...(timestamp ? { timestampHeader: 'X-Ts' } : {}),
            ...(signedContent === undefined ? {} : { signedContent }),
          };
          const warned = signatureCoverage('a.yaml', parts({ signature: config }), {}).some(
            (d) => d.code === 'unsigned_id',
          );
          expect(warned).toBe(unsignedIdHeader(config) !== undefined);
        },
      ),
    );
  });
});

describe('loading a contract', () => {
  it('the shipped Petstore contracts sign their id: no coverage diagnostics', async () => {
    const { diagnostics } = await loadContracts(['schemas/']);
    expect(diagnostics.filter((d) => d.code.startsWith('unsigned_'))).toEqual([]);
  });

  it('reports what the signature does not cover', async () => {
    const file = path.join(tmp, 'unsigned.yaml');
    writeFileSync(
      file,
      stringify({
        openapi: '3.1.0',
        info: { title: 'U', version: '1' },
        'x-gen-webhooks': {
          signature: { ...HMAC, signedContent: '{timestamp}.{body}' },
          selector: { kind: 'header', header: 'X-Event' },
        },
        webhooks: {
          a: {
            post: {
              'x-gen-webhooks': { match: { header: 'a' } },
              requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
            },
          },
        },
      }),
    );
    const model = await loadContract(file);
    expect(model.diagnostics.map((d) => `${d.level}:${d.code}:${d.pointer}`)).toEqual(
      expect.arrayContaining([
        'warning:unsigned_id:/x-gen-webhooks/signature/signedContent',
        'warning:unsigned_type:/x-gen-webhooks/selector/header',
      ]),
    );
  });
});
