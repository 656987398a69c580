import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixture } from '../../test/fixtures/specs/helpers.js';
import type { ContractModel, EventModel } from '../model.js';
import { loadContract } from './index.js';

const event = (model: ContractModel, name: string): EventModel => {
  const found = model.events.find((e) => e.name === name);
  if (!found) throw new Error(`no event ${name} in ${model.events.map((e) => e.name).join(', ')}`);
  return found;
};

describe('OpenAPI 3.1 webhooks', async () => {
  const file = fixture('openapi31/shop.webhooks.yaml');
  const model = await loadContract(file);

  it('describes the contract', () => {
    expect(model).toMatchObject({
      name: 'shop-webhooks',
      title: 'Shop Webhooks',
      version: '2.0.0',
      description: 'Hand-written fixture for the OpenAPI 3.1 parser.',
      format: 'openapi-3.1',
      file,
      signature: { kind: 'standard-webhooks' },
      // No body has a type field or a `data` beside envelope fields: bare bodies, told apart by schema.
      envelope: { kind: 'bare' },
      selector: { kind: 'schema' },
    });
    expect(model.retry).toBeUndefined();
    expect(model.diagnostics.map((d) => d.code)).toContain('no_type_field');
  });

  it('makes one event per operation with a body, sorted by name', () => {
    expect(model.events.map((e) => e.name)).toEqual([
      'customer.changed',
      'form.submitted',
      'inventory.changed.post',
      'inventory.changed.put',
      'order.created',
      'order.refunded',
    ]);
    const codes = model.diagnostics.map((d) => `${d.level}:${d.code}:${d.pointer}`);
    expect(codes).toContain('warning:several_operations:/webhooks/inventory.changed');
    expect(codes).toContain('info:no_request_body:/webhooks/inventory.changed/get');
    expect(codes).toContain(
      'warning:form_body:/webhooks/form.submitted/post/requestBody/content/application~1x-www-form-urlencoded',
    );
    expect(codes).toContain('warning:unsupported_media_type:/webhooks/report.ready/post/requestBody/content');
  });

  it('reads a requestBody $ref, header parameters, examples and texts', () => {
    const created = event(model, 'order.created');
    expect(created.summary).toBe('An order was created');
    expect(created.description).toBe('Sent when an order is placed.');
    expect(created.source).toBe(`${file}#/webhooks/order.created/post`);
    expect(created.payload).toEqual({
      schema: { $ref: '#/schemas/Order' },
      source: `${file}#/components/requestBodies/OrderBody/content/application~1json; charset=utf-8/schema`,
    });
    expect(created.examples).toEqual([{ id: 'o_1', total: 12.5, items: [{ sku: 'A' }] }]);
    expect(created.headers?.schema).toEqual({
      type: 'object',
      properties: {
        'X-Shop-Signature': { type: 'string', description: 'HMAC of the body.' },
        'X-Shop-Id': { type: 'string', format: 'uuid' },
      },
      required: ['X-Shop-Signature'],
    });
    expect(model.schemas.Order?.schema).toMatchObject({
      properties: { items: { type: 'array', items: { $ref: '#/schemas/LineItem' } } },
    });
    expect(model.schemas.LineItem?.source).toBe(`${file}#/components/schemas/LineItem`);
  });

  it('follows a path item $ref and inlines refs to unnamed schema parts', () => {
    const refunded = event(model, 'order.refunded');
    expect(refunded.summary).toBe('Refund issued');
    expect(refunded.source).toBe(`${file}#/components/pathItems/Refunded/post`);
    expect(refunded.payload.schema).toEqual({
      type: 'object',
      properties: {
        orderId: { type: 'string', pattern: '^o_' },
        amount: { type: 'number', exclusiveMinimum: 0 },
      },
    });
  });

  it('applies the operation extension, +json media types, Example Object refs and $ref siblings', () => {
    const changed = event(model, 'customer.changed');
    expect(changed.match).toEqual({ body: 'customer.changed.v2' });
    expect(changed.deprecated).toBe(true);
    expect(changed.examples).toEqual([{ id: 'c_1' }, { id: 'c_2', nickname: 'Bob' }]);
    expect(changed.payload.schema).toEqual({
      type: 'object',
      required: ['id'],
      properties: {
        id: { type: 'string' },
        nickname: { $ref: '#/schemas/Nickname', description: 'The display name, if set.' },
        tier: { allOf: [{ $ref: '#/schemas/Tier' }], maxLength: 10 },
      },
    });
    expect(model.schemas.Nickname?.schema).toEqual({ type: ['string', 'null'] });
  });

  it('loads the same events from a JSON copy of the document', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const os = await import('node:os');
    const { parse } = await import('yaml');
    const { readFileSync } = await import('node:fs');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-openapi-'));
    try {
      const copy = path.join(dir, 'shop.webhooks.json');
      writeFileSync(copy, JSON.stringify(parse(readFileSync(file, 'utf8'))));
      const json = await loadContract(copy);
      expect(json.events.map((e) => e.name)).toEqual(model.events.map((e) => e.name));
      expect(json.schemas.Order?.schema).toEqual(model.schemas.Order?.schema);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('OpenAPI 3.0 callbacks and x-webhooks', async () => {
  const file = fixture('openapi30/billing.yaml');
  const model = await loadContract(file);

  it('names callback events after the key, adding the expression when one callback has several', () => {
    expect(model.format).toBe('openapi-3.0');
    expect(model.version).toBe('1.0'); // YAML `version: 1.0` is kept as written
    expect(model.events.map((e) => e.name)).toEqual([
      'customer.deleted',
      'invoicePaid',
      'lifecycle.request.body.callbackUrl.ended',
      'lifecycle.request.body.callbackUrl.started',
      'shared',
    ]);
    expect(event(model, 'invoicePaid').source).toBe(
      `${file}#/paths/~1subscriptions/post/callbacks/invoicePaid/{$request.body#~1callbackUrl}/post`,
    );
    // A callback shared by two operations through components/callbacks is one event.
    expect(event(model, 'shared').source).toBe(
      `${file}#/components/callbacks/Shared/https:~1~1hooks.example~1notify/post`,
    );
  });

  it('normalises nullable, boolean exclusive bounds and example', () => {
    expect(model.schemas.Invoice?.schema).toEqual({
      type: 'object',
      required: ['id', 'amount'],
      properties: {
        id: { type: 'string' },
        amount: { type: 'number', exclusiveMinimum: 0, maximum: 1000 },
        memo: { type: ['string', 'null'], examples: ['Thanks!'] },
        status: { type: ['string', 'null'], enum: ['paid', 'void', null] },
        customer: { $ref: '#/schemas/Customer' },
        legacy: { type: ['integer', 'null'] },
      },
    });
    expect(model.schemas.Customer?.schema).toEqual({
      anyOf: [{ allOf: [{ type: 'object', properties: { id: { type: 'string' } } }] }, { type: 'null' }],
    });
  });
});
