import { describe, expect, it } from 'vitest';
import { fixture } from '../../test/fixtures/specs/helpers.js';
import { GeneratorError } from '../errors.js';
import type { Loc } from '../load/document-store.js';
import { readEventExtension, readRootExtension } from './extension.js';
import { loadContract } from './index.js';

const at = (value: unknown, pointer = ''): Loc => ({
  doc: { id: '/specs/doc.yaml', display: 'specs/doc.yaml', value, rawScalar: () => undefined },
  pointer,
  value,
});

const root = (extension: unknown): Loc => at({ openapi: '3.1.0', 'x-gen-webhooks': extension });

function rootError(extension: unknown): GeneratorError {
  try {
    readRootExtension(root(extension));
  } catch (error) {
    if (error instanceof GeneratorError) return error;
    throw error;
  }
  throw new Error('expected invalid_extension');
}

const petstore = {
  signature: {
    kind: 'hmac',
    header: 'X-Webhook-Signature',
    algorithm: 'sha256',
    encoding: 'hex',
    prefix: 'sha256=',
    timestampHeader: 'X-Webhook-Timestamp',
    idHeader: 'X-Webhook-Id',
  },
  envelope: {
    kind: 'envelope',
    fields: { type: 'event', apiVersion: 'apiVersion' },
    apiVersion: '2024-06-01',
  },
  selector: { kind: 'body', field: 'event' },
  retry: { kind: 'exponential', initialDelay: 1, factor: 2, maxDelay: 512, maxAttempts: 10 },
};

describe('x-gen-webhooks at the root', () => {
  it('is optional', () => {
    expect(readRootExtension(at({ openapi: '3.1.0' }))).toEqual({});
  });

  it('accepts the Petstore configuration unchanged', () => {
    expect(readRootExtension(root(petstore))).toEqual(petstore);
  });

  it('accepts every variant of the runtime types', () => {
    expect(
      readRootExtension(
        root({
          signature: { kind: 'preset', preset: 'stripe' },
          envelope: { kind: 'bare' },
          selector: { kind: 'header', header: 'X-Event', bodyField: 'action' },
          retry: { kind: 'list', delays: [0, 5, 60.5], jitter: { kind: 'percent', percent: 20 } },
        }),
      ),
    ).toEqual({
      signature: { kind: 'preset', preset: 'stripe' },
      envelope: { kind: 'bare' },
      selector: { kind: 'header', header: 'X-Event', bodyField: 'action' },
      retry: { kind: 'list', delays: [0, 5, 60.5], jitter: { kind: 'percent', percent: 20 } },
    });
    expect(
      readRootExtension(root({ signature: { kind: 'none' }, selector: { kind: 'envelope-type' } })),
    ).toEqual({
      signature: { kind: 'none' },
      selector: { kind: 'envelope-type' },
    });
  });

  it('reads an asymmetric signature', () => {
    const signature = {
      kind: 'asymmetric',
      header: 'X-Signature',
      algorithm: 'ecdsa-sha256',
      encoding: 'base64',
      timestampHeader: 'X-Timestamp',
      signedContent: '{timestamp}.{body}',
    };
    expect(readRootExtension(root({ signature }))).toEqual({ signature });
  });

  const cases: [string, unknown, string, RegExp][] = [
    [
      'an unknown asymmetric algorithm',
      { signature: { kind: 'asymmetric', header: 'X-S', algorithm: 'dsa', encoding: 'hex' } },
      '/x-gen-webhooks/signature/algorithm',
      /"ed25519", "ecdsa-sha256"/,
    ],
    ['not a mapping', 'hmac', '/x-gen-webhooks', /a mapping/],
    [
      'an unknown top-level key',
      { signing: {} },
      '/x-gen-webhooks/signing',
      /signature, envelope, selector, retry/,
    ],
    [
      'an unknown signature kind',
      { signature: { kind: 'rsa' } },
      '/x-gen-webhooks/signature/kind',
      /"standard-webhooks", "hmac", "asymmetric", "preset", "none"/,
    ],
    [
      'an hmac without header',
      { signature: { ...petstore.signature, header: undefined } },
      '/x-gen-webhooks/signature/header',
      /non-empty string/,
    ],
    [
      'an hmac with a bad algorithm',
      { signature: { ...petstore.signature, algorithm: 'md5' } },
      '/x-gen-webhooks/signature/algorithm',
      /"sha256", "sha1", "sha512"/,
    ],
    [
      'an hmac with a bad encoding',
      { signature: { ...petstore.signature, encoding: 'base32' } },
      '/x-gen-webhooks/signature/encoding',
      /"hex", "base64"/,
    ],
    [
      'an hmac with an unknown key',
      { signature: { ...petstore.signature, secret: 'x' } },
      '/x-gen-webhooks/signature/secret',
      /one of kind, header/,
    ],
    [
      'a numeric prefix',
      { signature: { ...petstore.signature, prefix: 1 } },
      '/x-gen-webhooks/signature/prefix',
      /a string/,
    ],
    [
      'signedContent without {body}',
      { signature: { ...petstore.signature, signedContent: '{timestamp}' } },
      '/x-gen-webhooks/signature/signedContent',
      /\{body\}/,
    ],
    [
      'an unknown preset',
      { signature: { kind: 'preset', preset: 'paypal' } },
      '/x-gen-webhooks/signature/preset',
      /"stripe", "github"/,
    ],
    [
      'extra keys on a none signature',
      { signature: { kind: 'none', header: 'x' } },
      '/x-gen-webhooks/signature/header',
      /one of kind/,
    ],
    [
      'an unknown envelope kind',
      { envelope: { kind: 'cloudevents' } },
      '/x-gen-webhooks/envelope/kind',
      /"envelope", "bare"/,
    ],
    [
      'an unknown envelope field',
      { envelope: { kind: 'envelope', fields: { payload: 'data' } } },
      '/x-gen-webhooks/envelope/fields/payload',
      /id, type, timestamp, data, apiVersion/,
    ],
    [
      'an empty envelope field',
      { envelope: { kind: 'envelope', fields: { type: '' } } },
      '/x-gen-webhooks/envelope/fields/type',
      /non-empty string/,
    ],
    [
      'a body selector without field',
      { selector: { kind: 'body' } },
      '/x-gen-webhooks/selector/field',
      /non-empty string/,
    ],
    [
      'a header selector without header',
      { selector: { kind: 'header', bodyField: 'action' } },
      '/x-gen-webhooks/selector/header',
      /non-empty string/,
    ],
    [
      'an unknown retry kind',
      { retry: { kind: 'linear' } },
      '/x-gen-webhooks/retry/kind',
      /"exponential", "list"/,
    ],
    [
      'a factor below 1',
      { retry: { ...petstore.retry, factor: 0.5 } },
      '/x-gen-webhooks/retry/factor',
      /a number >= 1/,
    ],
    [
      'a fractional maxAttempts',
      { retry: { ...petstore.retry, maxAttempts: 2.5 } },
      '/x-gen-webhooks/retry/maxAttempts',
      /an integer >= 1/,
    ],
    [
      'maxDelay below initialDelay',
      { retry: { ...petstore.retry, initialDelay: 10, maxDelay: 5 } },
      '/x-gen-webhooks/retry/maxDelay',
      /a number >= 10/,
    ],
    [
      'a negative initialDelay',
      { retry: { ...petstore.retry, initialDelay: -1 } },
      '/x-gen-webhooks/retry/initialDelay',
      /a number >= 0/,
    ],
    [
      'a string delay',
      { retry: { kind: 'list', delays: [1, '2'] } },
      '/x-gen-webhooks/retry/delays/1',
      /a number >= 0/,
    ],
    [
      'empty delays',
      { retry: { kind: 'list', delays: [] } },
      '/x-gen-webhooks/retry/delays',
      /non-empty list/,
    ],
    [
      'jitter percent above 100',
      { retry: { ...petstore.retry, jitter: { kind: 'percent', percent: 150 } } },
      '/x-gen-webhooks/retry/jitter/percent',
      /between 0 and 100/,
    ],
    [
      'an unknown jitter kind',
      { retry: { ...petstore.retry, jitter: { kind: 'equal' } } },
      '/x-gen-webhooks/retry/jitter/kind',
      /"none", "full", "percent"/,
    ],
  ];

  it.each(cases)(
    'rejects %s with the pointer and what was expected',
    (_name, extension, pointer, expected) => {
      const error = rootError(extension);
      expect(error.code).toBe('invalid_extension');
      expect(error.file).toBe('specs/doc.yaml');
      expect(error.pointer).toBe(pointer);
      expect(error.expected).toMatch(expected);
    },
  );
});

describe('x-gen-webhooks on an operation or message', () => {
  const op = (extension: unknown) => at({ 'x-gen-webhooks': extension }, '/webhooks/a/post');

  it('reads event and match', () => {
    expect(readEventExtension(op({ event: 'a.b', match: { header: 'h', body: 'b' } }))).toEqual({
      event: 'a.b',
      match: { header: 'h', body: 'b' },
    });
    expect(readEventExtension(at({}))).toEqual({});
  });

  it.each([
    [{ name: 'x' }, '/webhooks/a/post/x-gen-webhooks/name', /event, match/],
    [{ event: '' }, '/webhooks/a/post/x-gen-webhooks/event', /non-empty string/],
    [{ match: 'a' }, '/webhooks/a/post/x-gen-webhooks/match', /a mapping/],
    [{ match: { type: 'a' } }, '/webhooks/a/post/x-gen-webhooks/match/type', /header, body/],
    [{ match: { body: 3 } }, '/webhooks/a/post/x-gen-webhooks/match/body', /non-empty string/],
  ])('rejects %j', (extension, pointer, expected) => {
    let error: unknown;
    try {
      readEventExtension(op(extension));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GeneratorError);
    expect((error as GeneratorError).code).toBe('invalid_extension');
    expect((error as GeneratorError).pointer).toBe(pointer);
    expect((error as GeneratorError).expected).toMatch(expected);
  });
});

describe('x-gen-webhooks in a loaded contract', () => {
  it('sets signature, envelope, selector and retry and cuts the payload to the data field', async () => {
    const model = await loadContract(fixture('asyncapi3/orders.yaml'));
    expect(model.envelope).toEqual({ kind: 'envelope', fields: { type: 'event', data: 'body' } });
    expect(model.selector).toEqual({ kind: 'body', field: 'event' });
    expect(model.signature).toEqual({ kind: 'standard-webhooks' });
    const created = model.events.find((e) => e.name === 'order.created');
    expect(created?.payload.schema).toEqual({ $ref: '#/schemas/Order' });
    expect(created?.payload.source).toBe(
      `${fixture('asyncapi3/orders.yaml')}#/components/messages/OrderCreated/payload/properties/body`,
    );
    expect(created?.examples).toEqual([{ id: 'o_1' }]);
  });
});

describe('docs/extensions.md', async () => {
  const { readFileSync } = await import('node:fs');
  const { parse } = await import('yaml');
  const docsFile = fixture('../../../docs/extensions.md');
  const docs = readFileSync(docsFile, 'utf8');
  const blocks = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');

  it('shows a Petstore extension that validates and matches schemas/petstore.openapi.yaml', () => {
    const block = blocks.find((b) => b.includes('kind: hmac'));
    const parsed = parse(block ?? '') as Record<string, unknown>;
    const config = readRootExtension(at(parsed));
    expect(config).toMatchObject({
      signature: { kind: 'hmac', header: 'X-Webhook-Signature', prefix: 'sha256=', encoding: 'hex' },
      envelope: { kind: 'envelope', fields: { type: 'event', apiVersion: 'apiVersion' } },
      retry: { kind: 'exponential', initialDelay: 1, maxDelay: 512, maxAttempts: 11 },
    });
    const petstore = fixture('../../../schemas/petstore.openapi.yaml');
    const doc = parse(readFileSync(petstore, 'utf8')) as Record<string, unknown>;
    expect(readRootExtension(at(doc))).toEqual(config);
  });

  it('quotes the error line the loader really prints', () => {
    const loc: Loc = {
      doc: {
        id: '/p.yaml',
        display: 'schemas/petstore.openapi.yaml',
        value: null,
        rawScalar: () => undefined,
      },
      pointer: '',
      value: { 'x-gen-webhooks': { signature: { ...petstore.signature, algorithm: 'md5' } } },
    };
    let line = '';
    try {
      readRootExtension(loc);
    } catch (error) {
      line = (error as GeneratorError).format();
    }
    expect(docs).toContain(line);
  });
});
