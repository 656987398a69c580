/**
 * A delivery config that makes no sense is refused twice over, by the same rules: the runtime's
 * `createReceiver`/`createParser` refuse a hand-written contract's (`invalid_config`), the generator
 * refuses a document's (`GeneratorError`), since a generated Web receiver checks nothing again.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDelivery } from '../../generator/parse/check-delivery.js';
import { loadContract } from '../../generator/parse/index.js';
import { petstore, SECRET } from '../../test/receiver/fixtures.js';
import type { Contract, EnvelopeConfig, SelectorConfig, SignatureConfig } from '../contract.js';
import { WebhookError } from '../errors.js';
import { createParser as createNodeParser, createReceiver as createNodeReceiver } from './receiver-node.js';
import { createParser, createReceiver } from './receiver-web.js';

const hmac: Extract<SignatureConfig, { kind: 'hmac' }> = {
  kind: 'hmac',
  header: 'X-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  timestampHeader: 'X-Timestamp',
  idHeader: 'X-Id',
};
const envelope: Extract<EnvelopeConfig, { kind: 'envelope' }> = { kind: 'envelope' };
const byType: SelectorConfig = { kind: 'envelope-type' };

type Case = readonly [string, Partial<Pick<Contract, 'signature' | 'envelope' | 'selector'>>];

const refused: readonly Case[] = [
  ['a header name with a space', { signature: { ...hmac, header: 'X Signature' } }],
  ['a timestamp header name with a colon', { signature: { ...hmac, timestampHeader: 'X:T' } }],
  ['an empty id header', { signature: { ...hmac, idHeader: '' } }],
  ['an unknown algorithm', { signature: { ...hmac, algorithm: 'md5' as never } }],
  ['an unknown encoding', { signature: { ...hmac, encoding: 'base32' as never } }],
  ['a prefix with a comma', { signature: { ...hmac, prefix: 'v1,' } }],
  ['an unknown placeholder', { signature: { ...hmac, signedContent: '{nonce}.{body}' } }],
  ['{body} twice', { signature: { ...hmac, signedContent: '{body}.{body}' } }],
  ['no {body}', { signature: { ...hmac, signedContent: '{id}.{timestamp}' } }],
  [
    '{timestamp} without its header',
    {
      signature: {
        kind: 'hmac',
        header: 'X-S',
        algorithm: 'sha256',
        encoding: 'hex',
        signedContent: '{timestamp}.{body}',
      },
    },
  ],
  [
    '{id} without its header',
    {
      signature: {
        kind: 'hmac',
        header: 'X-S',
        algorithm: 'sha256',
        encoding: 'hex',
        signedContent: '{id}.{body}',
      },
    },
  ],
  ['two fields of one name', { envelope: { ...envelope, fields: { type: 'id' } } }],
  [
    'the data field named like the api version',
    { envelope: { ...envelope, apiVersion: '1', fields: { apiVersion: 'data' } } },
  ],
  ['an empty field name', { envelope: { ...envelope, fields: { data: '' } } }],
  ['an unknown absent field', { envelope: { ...envelope, absent: ['data' as never] } }],
  ['optional as text', { envelope: { ...envelope, optional: 'id' as never } }],
  ['an unknown timestamp format', { envelope: { ...envelope, timestampFormat: 'rfc2822' as never } }],
  [
    'the envelope-type selector without a type field',
    { envelope: { ...envelope, absent: ['type'] }, selector: byType },
  ],
];

const accepted: readonly Case[] = [
  ['the defaults', {}],
  ['an hmac signature', { signature: hmac }],
  [
    'a prefix and a template',
    { signature: { ...hmac, prefix: 'sha256=', signedContent: '{timestamp}:{id}:{body}' } },
  ],
  [
    'the data field named like an absent one',
    { envelope: { ...envelope, absent: ['id'], fields: { data: 'id' } } },
  ],
  [
    'a body selector over an envelope without a type',
    { envelope: { ...envelope, absent: ['type'] }, selector: { kind: 'body', field: 'kind' } },
  ],
  ['a bare body', { envelope: { kind: 'bare' }, selector: { kind: 'body', field: 'type' } }],
];

const contractOf = (fields: Case[1]): Contract => ({ ...(petstore as Contract), ...fields });

const generatorCheck = (fields: Case[1]) => () => {
  const c = contractOf(fields);
  checkDelivery(
    { signature: c.signature, envelope: c.envelope, selector: c.selector },
    { file: 'x.yaml', signature: '/x-gen-webhooks/signature', envelope: '/x-gen-webhooks/envelope' },
  );
};

const builders = [
  ['Web createReceiver', (c: Contract) => createReceiver(c, { secret: SECRET, dedupe: false })],
  ['Web createParser', (c: Contract) => createParser(c, { secret: SECRET })],
  ['Node createReceiver', (c: Contract) => createNodeReceiver(c, { secret: SECRET, dedupe: false })],
  ['Node createParser', (c: Contract) => createNodeParser(c, { secret: SECRET })],
] as const;

describe('a delivery config that makes no sense', () => {
  it.each(refused)(
    '%s: invalid_config from the runtime, a GeneratorError from the generator',
    (_, fields) => {
      for (const [who, build] of builders) {
        let error: unknown;
        try {
          build(contractOf(fields));
        } catch (caught) {
          error = caught;
        }
        expect(error, who).toBeInstanceOf(WebhookError);
        expect((error as WebhookError).code, who).toBe('invalid_config');
      }
      expect(generatorCheck(fields)).toThrow(expect.objectContaining({ name: 'GeneratorError' }));
    },
  );

  it.each(accepted)('%s: accepted by both', (_, fields) => {
    for (const [who, build] of builders) expect(() => build(contractOf(fields)), who).not.toThrow();
    expect(generatorCheck(fields)).not.toThrow();
  });

  it('names where it was declared, and what was expected', () => {
    expect(generatorCheck({ envelope: { ...envelope, fields: { type: 'id' } } })).toThrow(
      expect.objectContaining({
        code: 'invalid_extension',
        file: 'x.yaml',
        pointer: '/x-gen-webhooks/envelope',
        message: 'envelope: the id and type fields are both "id"',
      }),
    );
    expect(generatorCheck({ signature: { ...hmac, header: 'X Signature' } })).toThrow(
      expect.objectContaining({
        pointer: '/x-gen-webhooks/signature',
        message: 'hmac signature: header "X Signature" is not a header name',
        expected: 'a header name such as X-Signature',
      }),
    );
  });

  it('a header selector with an event that has no header value: refused by both', async () => {
    const headerSelected: Contract = {
      ...(petstore as Contract),
      envelope: { kind: 'bare' },
      selector: { kind: 'header', header: 'X-Event' },
      events: { 'pet.adopted': { schema: petstore.events['pet.adopted'].schema } },
    };
    for (const [who, build] of builders) {
      expect(() => build(headerSelected), who).toThrow(
        expect.objectContaining({ code: 'invalid_config', message: expect.stringMatching(/match\.header/) }),
      );
    }
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-check-'));
    try {
      const file = path.join(dir, 'header.openapi.yaml');
      const spec = readFileSync(
        path.join(import.meta.dirname, '../../schemas/petstore.openapi.yaml'),
        'utf8',
      );
      writeFileSync(
        file,
        spec.replace(
          / {2}selector:\n {4}kind: body\n {4}field: event\n/,
          '  selector:\n    kind: header\n    header: X-Event\n',
        ),
      );
      await expect(loadContract(file)).rejects.toMatchObject({
        name: 'GeneratorError',
        message: expect.stringMatching(/has no header value for the "X-Event" selector/),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
