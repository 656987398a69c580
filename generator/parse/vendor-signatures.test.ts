/** Signature schemes declared in other generators' dialects (Fern, Speakeasy, APIMatic) (#17). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ContractModel } from '../model.js';
import { loadContract } from './index.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-dialects-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
const body = (type: string) => ({
  type: 'object',
  required: ['event_type', 'data'],
  properties: { event_type: { type: 'string', const: type }, data: { type: 'object' } },
});
async function load(
  root: Record<string, unknown>,
  operation: Record<string, unknown> = {},
): Promise<ContractModel> {
  const file = path.join(tmp, `d${++n}.json`);
  const hook = (type: string) => ({
    post: {
      operationId: type.replace('.', '_'),
      ...operation,
      requestBody: { content: { 'application/json': { schema: body(type) } } },
    },
  });
  writeFileSync(
    file,
    JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'Dialects', version: '1' },
      webhooks: { 'payment.created': hook('payment.created'), 'payment.updated': hook('payment.updated') },
      ...root,
    }),
  );
  return loadContract(file);
}
const warnings = (model: ContractModel, code: string) =>
  model.diagnostics.filter((d) => d.code === code).map((d) => `${d.pointer}: ${d.message}`);

describe('Fern x-fern-webhook-signature', () => {
  it('HMAC with a signed timestamp header, delimiter and prefix', async () => {
    const model = await load({
      'x-fern-webhook-signature': {
        type: 'hmac',
        header: 'x-webhook-signature',
        algorithm: 'sha256',
        encoding: 'hex',
        'signature-prefix': 'sha256=',
        'payload-format': { components: ['timestamp', 'body'], delimiter: '.' },
        timestamp: { header: 'x-webhook-timestamp', format: 'unix-seconds', tolerance: 600 },
      },
    });
    expect(model.signature).toEqual({
      kind: 'hmac',
      header: 'x-webhook-signature',
      algorithm: 'sha256',
      encoding: 'hex',
      prefix: 'sha256=',
      timestampHeader: 'x-webhook-timestamp',
      signedContent: '{timestamp}.{body}',
    });
    expect(warnings(model, 'signature_tolerance')[0]).toContain('tolerance: 600');
  });

  it('defaults (base64, body only), on a webhook operation', async () => {
    const model = await load({}, { 'x-fern-webhook-signature': { type: 'hmac', header: 'X-Sig' } });
    expect(model.signature).toEqual({
      kind: 'hmac',
      header: 'X-Sig',
      algorithm: 'sha256',
      encoding: 'base64',
    });
  });

  it('asymmetric: algorithm, encoding, prefix and a signed timestamp become an asymmetric scheme', async () => {
    const model = await load({
      'x-fern-webhook-signature': {
        type: 'asymmetric',
        header: 'x-signature',
        'asymmetric-algorithm': 'ecdsa-sha256',
        encoding: 'hex',
        'signature-prefix': 'v1=',
        'payload-format': { components: ['timestamp', 'body'], delimiter: ':' },
        timestamp: { header: 'x-timestamp', tolerance: 120 },
        'jwks-url': 'https://example.com/.well-known/jwks.json',
      },
    });
    expect(model.signature).toEqual({
      kind: 'asymmetric',
      header: 'x-signature',
      algorithm: 'ecdsa-sha256',
      encoding: 'hex',
      prefix: 'v1=',
      timestampHeader: 'x-timestamp',
      signedContent: '{timestamp}:{body}',
    });
    expect(warnings(model, 'signature_not_supported')).toEqual([
      "/x-fern-webhook-signature/jwks-url: x-fern-webhook-signature: jwks-url is not followed (keys are not fetched); pass the sender's public key(s) as `publicKey` to createReceiver",
    ]);
    const ed = await load(
      {},
      {
        'x-fern-webhook-signature': {
          type: 'asymmetric',
          header: 'X-Sig',
          'asymmetric-algorithm': 'ed25519',
        },
      },
    );
    expect(ed.signature).toEqual({
      kind: 'asymmetric',
      header: 'X-Sig',
      algorithm: 'ed25519',
      encoding: 'base64',
    });
  });

  it('an unknown asymmetric algorithm and unsupported parts are warnings, not a silent scheme', async () => {
    const unknown = await load({
      'x-fern-webhook-signature': { type: 'asymmetric', header: 'x-sig', 'asymmetric-algorithm': 'dsa-sha1' },
    });
    expect(unknown.signature).toEqual({ kind: 'standard-webhooks' });
    expect(warnings(unknown, 'signature_not_supported')[0]).toMatch(
      /^\/x-fern-webhook-signature\/asymmetric-algorithm: .*"dsa-sha1" is not one of ed25519/,
    );
    const millis = await load({
      'x-fern-webhook-signature': {
        type: 'hmac',
        header: 'x-sig',
        timestamp: { header: 'x-ts', format: 'unix-millis' },
      },
    });
    expect(warnings(millis, 'signature_not_supported')[0]).toContain('unix-millis');
  });
});

describe('Speakeasy x-speakeasy-webhooks', () => {
  it('signature (headerName, text encoding) and signatureStandardWebhooks', async () => {
    const hmac = await load({
      'x-speakeasy-webhooks': {
        security: {
          type: 'signature',
          headerName: 'x-signature',
          signatureTextEncoding: 'hex',
          algorithm: 'hmac-sha256',
        },
      },
    });
    expect(hmac.signature).toEqual({
      kind: 'hmac',
      header: 'x-signature',
      algorithm: 'sha256',
      encoding: 'hex',
    });
    const standard = await load({
      'x-speakeasy-webhooks': { security: { type: 'signatureStandardWebhooks' } },
    });
    expect(standard.signature).toEqual({ kind: 'standard-webhooks' });
    const url = await load({
      'x-speakeasy-webhooks': { security: { type: 'signature', signatureTextEncoding: 'base64url' } },
    });
    expect(warnings(url, 'signature_not_supported')[0]).toContain('base64url');
  });
});

describe('APIMatic x-webhooks groups', () => {
  it('signatureVerification and a discriminator propertyPointer with its mapping', async () => {
    const model = await load({
      'x-webhooks': {
        discriminator: {
          propertyPointer: '$request.body#/event_type',
          mapping: { 'payment.created.v2': 'payment_created' },
        },
        signatureVerification: {
          signatureHeader: 'X-Signature',
          algorithm: 'HMAC-SHA512',
          digestEncoding: 'base64',
          signatureValueTemplate: 'v1={digest}',
        },
      },
    });
    expect(model.events.map((e) => e.name)).toEqual(['payment.created', 'payment.updated']);
    expect(model.signature).toEqual({
      kind: 'hmac',
      header: 'X-Signature',
      algorithm: 'sha512',
      encoding: 'base64',
      prefix: 'v1=',
    });
    expect(model.selector).toEqual({ kind: 'body', field: 'event_type' });
    expect(model.events.map((e) => [e.name, e.match])).toEqual([
      ['payment.created', { body: 'payment.created.v2' }],
      ['payment.updated', undefined],
    ]);
  });
});

describe('signature extensions nobody reads', () => {
  it('are a warning naming the extension and the fix', async () => {
    const model = await load({ 'x-acme-webhook-signature': { header: 'X-Acme' } });
    expect(model.signature).toEqual({ kind: 'standard-webhooks' });
    const [warning] = warnings(model, 'unknown_signature_extension');
    expect(warning).toContain(
      '/x-acme-webhook-signature: x-acme-webhook-signature looks like a signature declaration',
    );
    expect(warning).toContain('--signature');
    const declared = await load({
      'x-acme-webhook-signature': { header: 'X-Acme' },
      'x-gen-webhooks': { signature: { kind: 'none' } },
    });
    expect(warnings(declared, 'unknown_signature_extension')).toEqual([]);
  });
});
