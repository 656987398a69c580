import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { fixture, generatorError } from '../../test/fixtures/specs/helpers.js';
import { contractName } from './contract-name.js';
import { loadContract, loadContracts } from './index.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-load-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('loadContracts', () => {
  it('loads every contract directly in a directory, sorted, skipping shared files', async () => {
    const dir = fixture('dir');
    const result = await loadContracts([dir]);
    expect(result.contracts.map((c) => [c.name, c.format, c.events.map((e) => e.name)])).toEqual([
      ['alpha', 'openapi-3.1', ['alpha.happened']],
      ['beta', 'asyncapi-3', ['betaHappened']],
    ]);
    expect(result.diagnostics).toContainEqual({
      level: 'info',
      code: 'not_a_contract',
      message: `${path.join(dir, 'common.yaml')} has no \`openapi\` or \`asyncapi\` key; skipped (a shared file?)`,
      file: path.join(dir, 'common.yaml'),
    });
    // Both contracts resolve the shared file; each gets its own model-local copy of the schema.
    expect(result.contracts[0]?.schemas.Thing?.source).toBe(`${path.join(dir, 'common.yaml')}#/Thing`);
    expect(result.contracts[1]?.schemas.Thing?.schema).toEqual(result.contracts[0]?.schemas.Thing?.schema);
  });

  it('accepts files and directories together and loads a file named twice once', async () => {
    const alpha = fixture('dir/alpha.yaml');
    const result = await loadContracts([alpha, fixture('dir'), alpha]);
    expect(result.contracts.map((c) => c.name)).toEqual(['alpha', 'beta']);
  });

  it('refuses two contracts with the same name', async () => {
    const a = path.join(tmp, 'one');
    const b = path.join(tmp, 'two');
    mkdirSync(a);
    mkdirSync(b);
    const doc = stringify({
      openapi: '3.1.0',
      info: { title: 'X', version: '1' },
      webhooks: { x: { post: { requestBody: { content: { 'application/json': { schema: {} } } } } } },
    });
    writeFileSync(path.join(a, 'hooks.yaml'), doc);
    writeFileSync(path.join(b, 'Hooks.yml'), doc);
    const error = await generatorError(() => loadContracts([a, b]));
    expect(error.code).toBe('identifier_collision');
    expect(error.file).toBe(path.join(b, 'Hooks.yml'));
  });

  it('reports a missing input as file_not_found', async () => {
    const error = await generatorError(() => loadContracts([path.join(tmp, 'missing')]));
    expect(error.code).toBe('file_not_found');
    expect(error.file).toBe(path.join(tmp, 'missing'));
  });
});

describe('bad input', () => {
  it.each([
    ['bad/invalid.yaml', 'invalid_yaml', undefined, /line 7, column 3/],
    ['bad/invalid.json', 'invalid_json', undefined, /line 3, column 32/],
    ['bad/unknown-version.yaml', 'unsupported_version', '/openapi', /"2.5.0"/],
    ['bad/unknown-asyncapi-version.yaml', 'unsupported_version', '/asyncapi', /"1.2.0"/],
    ['bad/swagger.yaml', 'unsupported_version', '/swagger', /Swagger/],
    ['bad/no-events.yaml', 'no_events', '', /no webhook events/],
    ['bad/not-a-contract.yaml', 'unknown_format', '', /no `openapi` or `asyncapi` key/],
    ['bad/list.yaml', 'unknown_format', '', /a list/],
    ['bad/empty.yaml', 'unknown_format', '', /the document is empty/],
    ['dir/common.yaml', 'unknown_format', '', /not a webhook contract/],
    ['bad/nope.yaml', 'file_not_found', undefined, /not found/],
  ])('%s → %s', async (name, code, pointer, message) => {
    const file = fixture(name);
    const error = await generatorError(() => loadContract(file));
    expect(error.code).toBe(code);
    expect(error.file).toBe(file);
    expect(error.pointer).toBe(pointer);
    expect(error.message).toMatch(message);
    expect(error.expected).toBeTruthy();
    expect(error.format()).toContain(`[${code}]`);
  });

  it('requires a header value per event when the selector reads a header', async () => {
    const file = path.join(tmp, 'header-selector.yaml');
    writeFileSync(
      file,
      stringify({
        openapi: '3.1.0',
        info: { title: 'H', version: '1' },
        'x-gen-webhooks': { selector: { kind: 'header', header: 'X-Event' } },
        webhooks: { a: { post: { requestBody: { content: { 'application/json': { schema: {} } } } } } },
      }),
    );
    const error = await generatorError(() => loadContract(file));
    expect(error.code).toBe('invalid_extension');
    expect(error.file).toBe(file);
    expect(error.pointer).toBe('/webhooks/a/post');
  });

  it('renames a true duplicate event name and warns; drops a default match', async () => {
    const file = path.join(tmp, 'duplicates.yaml');
    const body = { content: { 'application/json': { schema: { type: 'object' } } } };
    writeFileSync(
      file,
      stringify({
        openapi: '3.1.0',
        info: { title: 'D', version: '1' },
        webhooks: {
          a: { post: { 'x-gen-webhooks': { event: 'same', match: { body: 'same' } }, requestBody: body } },
          b: { post: { 'x-gen-webhooks': { event: 'same' }, requestBody: body } },
        },
      }),
    );
    const model = await loadContract(file);
    expect(model.events.map((e) => [e.name, e.match])).toEqual([
      ['same', undefined],
      ['same_2', undefined],
    ]);
    expect(model.diagnostics.map((d) => `${d.code}:${d.pointer}`)).toContain(
      'duplicate_event:/webhooks/b/post',
    );
  });
});

describe('contract names', () => {
  it.each([
    ['schemas/petstore.openapi.yaml', 'petstore-openapi'],
    ['petstore.yml', 'petstore'],
    ['BalancePlatformAccountingNotification-v3.json', 'balance-platform-accounting-notification-v3'],
    ['api.github.com.json', 'api-github-com'],
    ['HTTPHooks.yaml', 'http-hooks'],
    ['__.yaml', 'contract'],
  ])('%s → %s', (file, name) => {
    expect(contractName(file)).toBe(name);
  });

  it.each([
    ['up/openapi.json', 'Up API', 'up-api'],
    ['svix/openapi.yaml', 'Svix API', 'svix-api'],
    ['asyncapi.yaml', 'Social Media — Comments Service', 'social-media-comments-service'],
    ['api-v2.yml', 'Billing', 'billing'],
    ['openapi.yaml', 'API', 'openapi'],
    ['billing.yaml', 'Something Else', 'billing'],
  ])('a generic file name takes the title: %s (%s) → %s', (file, title, name) => {
    expect(contractName(file, title)).toBe(name);
  });
});

describe('document details', () => {
  const write = (name: string, doc: unknown): string => {
    const file = path.join(tmp, name);
    writeFileSync(file, typeof doc === 'string' ? doc : stringify(doc));
    return file;
  };
  const body = { content: { 'application/json': { schema: { type: 'object' } } } };

  it('prefers `webhooks` over `x-webhooks` for the same key in 3.1', async () => {
    const model = await loadContract(
      write('both.yaml', {
        openapi: '3.1.0',
        info: { title: 'Both', version: '1' },
        webhooks: { a: { post: { summary: 'from webhooks', requestBody: body } } },
        'x-webhooks': {
          a: { post: { summary: 'from x-webhooks', requestBody: body } },
          b: { post: { requestBody: body } },
        },
      }),
    );
    expect(model.events.map((e) => [e.name, e.summary])).toEqual([
      ['a', 'from webhooks'],
      ['b', undefined],
    ]);
    expect(model.diagnostics.map((d) => `${d.code}:${d.pointer}`)).toContain(
      'duplicate_webhook:/x-webhooks/a',
    );
  });

  it('defaults a missing title and version with a warning', async () => {
    const model = await loadContract(
      write('Untitled Hooks.yaml', {
        openapi: '3.1.0',
        info: {},
        webhooks: { a: { post: { requestBody: body } } },
      }),
    );
    expect(model.name).toBe('untitled-hooks');
    expect(model.title).toBe('untitled-hooks');
    expect(model.version).toBe('0.0.0');
    expect(model.diagnostics.map((d) => d.code)).toContain('missing_version');
  });

  it('lets a root extension override the GitHub defaults', async () => {
    const model = await loadContract(fixture('github/plain-hooks.yaml'), { preset: 'github' });
    expect(model.envelope).toEqual({ kind: 'bare' });
    const file = write('github-override.yaml', {
      openapi: '3.1.0',
      info: { title: 'G', version: '1' },
      'x-gen-webhooks': { signature: { kind: 'none' } },
      webhooks: {
        star: {
          post: {
            parameters: [
              { name: 'X-GitHub-Event', in: 'header', schema: { type: 'string', enum: ['star'] } },
            ],
            requestBody: body,
          },
        },
      },
    });
    const overridden = await loadContract(file, { preset: 'github' });
    expect(overridden.signature).toEqual({ kind: 'none' });
    expect(overridden.selector).toEqual({ kind: 'header', header: 'X-GitHub-Event', bodyField: 'action' });
    expect(overridden.events.map((e) => [e.name, e.match])).toEqual([['star', { header: 'star' }]]);
  });

  it('keeps a YAML 1.2 `openapi: 3.1.0` written unquoted and rejects `openapi: 3.1` (not x.y.z)', async () => {
    const ok = await loadContract(
      write(
        'unquoted.yaml',
        'openapi: 3.1.0\ninfo: {title: U, version: 1.0}\nwebhooks:\n  a:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema: {type: object}\n',
      ),
    );
    expect(ok.format).toBe('openapi-3.1');
    expect(ok.version).toBe('1.0');
    const error = await generatorError(() =>
      loadContract(write('short.yaml', 'openapi: 3.1\ninfo: {title: U, version: "1"}\n')),
    );
    expect(error.code).toBe('unsupported_version');
    expect(error.message).toContain('"3.1"');
    expect(error.expected).toBe('"3.0.x", "3.1.x" or "3.2.x"');
  });
});

describe('lenient reading and routing checks', () => {
  const body = { content: { 'application/json': { schema: { type: 'object' } } } };

  it('reads `webhooks` in a 3.0 document with a warning', async () => {
    const file = path.join(tmp, 'webhooks-in-30.yaml');
    writeFileSync(
      file,
      stringify({
        openapi: '3.0.3',
        info: { title: 'W', version: '1' },
        webhooks: { a: { post: { requestBody: body } } },
      }),
    );
    const model = await loadContract(file);
    expect(model.events.map((e) => e.name)).toEqual(['a']);
    expect(model.diagnostics.map((d) => `${d.level}:${d.code}:${d.pointer}`)).toContain(
      'warning:webhooks_in_3_0:/webhooks',
    );
  });

  it('warns when two events have the same selector values', async () => {
    const file = path.join(tmp, 'ambiguous.yaml');
    writeFileSync(
      file,
      stringify({
        openapi: '3.1.0',
        info: { title: 'A', version: '1' },
        'x-gen-webhooks': { selector: { kind: 'body', field: 'type' } },
        webhooks: {
          a: { post: { requestBody: body } },
          b: { post: { 'x-gen-webhooks': { match: { body: 'a' } }, requestBody: body } },
        },
      }),
    );
    const model = await loadContract(file);
    expect(model.events.map((e) => [e.name, e.match])).toEqual([
      ['a', undefined],
      ['b', { body: 'a' }],
    ]);
    expect(model.diagnostics).toContainEqual({
      level: 'warning',
      code: 'ambiguous_match',
      message:
        'events "a" and "b" have the same type value; a receiver chooses between them by their payload schemas',
      file,
      pointer: '/webhooks/b/post',
    });
  });
});

describe('no events (#17)', () => {
  it('says what was skipped and why', async () => {
    const file = path.join(tmp, 'skipped.yaml');
    writeFileSync(
      file,
      stringify({
        openapi: '3.1.0',
        info: { title: 'S', version: '1' },
        webhooks: {
          ping: { get: { responses: { '200': { description: 'ok' } } } },
          report: {
            post: { requestBody: { content: { 'text/csv': { schema: { type: 'string' } } } } },
          },
        },
      }),
    );
    const error = await generatorError(() => loadContract(file));
    expect(error.code).toBe('no_events');
    expect(error.message).toContain('2 skipped');
    expect(error.message).toContain('operation GET has no request body; not an event at #/webhooks/ping/get');
    expect(error.message).toContain(
      '(found text/csv); operation skipped at #/webhooks/report/post/requestBody/content',
    );
  });
});
