/** Envelope and selector read from the event body schemas when a contract declares none (#17). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ContractModel } from '../model.js';
import { type LoadOptions, loadContract } from './index.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-derive-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
/** A 3.1 document with one webhook per body schema (key → schema), plus optional root fields. */
async function load(
  bodies: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  options: LoadOptions = {},
): Promise<ContractModel> {
  const webhooks = Object.fromEntries(
    Object.entries(bodies).map(([key, schema]) => [
      key,
      { post: { requestBody: { content: { 'application/json': { schema } } } } },
    ]),
  );
  const file = path.join(tmp, `c${++n}.json`);
  writeFileSync(
    file,
    JSON.stringify({ openapi: '3.1.0', info: { title: 'T', version: '1' }, webhooks, ...extra }),
  );
  return loadContract(file, options);
}

const obj = (properties: Record<string, unknown>, required = Object.keys(properties)) => ({
  type: 'object',
  properties,
  required,
});
const data = { type: 'object', properties: { id: { type: 'string' } } };
const matches = (model: ContractModel) => Object.fromEntries(model.events.map((e) => [e.name, e.match]));
const codes = (model: ContractModel) => model.diagnostics.map((d) => d.code);

describe('envelope derivation', () => {
  it('{ object, id, type, created_at: Unix seconds, data } with an HMAC signature that signs no id', async () => {
    const body = (type: string) =>
      obj({
        object: { type: 'string', const: 'event' },
        id: { type: 'string' },
        type: { type: 'string', const: type },
        created_at: { type: 'integer', description: 'Time of the event, in seconds since the epoch.' },
        data,
      });
    const model = await load(
      { 'invoice.paid': body('invoice.paid'), 'invoice.voided': body('invoice.voided') },
      {},
      { signature: { kind: 'hmac', header: 'X-Sig', algorithm: 'sha256', encoding: 'hex' } },
    );
    expect(model.envelope).toEqual({
      kind: 'envelope',
      fields: { timestamp: 'created_at' },
      timestampFormat: 'unix',
    });
    expect(model.selector).toEqual({ kind: 'envelope-type' });
    expect(model.events[0]?.payload.schema).toMatchObject({ properties: { id: { type: 'string' } } });
    expect(codes(model)).toContain('envelope_derived');
  });

  it('{ type, created_at, data }: no id field, so none is demanded; the type const is the match', async () => {
    const body = (type: string) =>
      obj({ type: { const: type }, created_at: { type: 'string', format: 'date-time' }, data });
    const model = await load({
      batch_completed: body('batch.completed'),
      batch_failed: body('batch.failed'),
    });
    expect(model.envelope).toEqual({
      kind: 'envelope',
      fields: { timestamp: 'created_at' },
      absent: ['id'],
      optional: ['timestamp'],
    });
    expect(matches(model)).toEqual({
      batch_completed: { body: 'batch.completed' },
      batch_failed: { body: 'batch.failed' },
    });
  });

  it('{ data, object, type, timestamp: Unix ms } (milliseconds said by the description or examples)', async () => {
    const body = (type: string, description?: string) =>
      obj({
        data,
        object: { type: 'string', enum: ['event'] },
        type: { type: 'string', enum: [type] },
        timestamp: { type: 'integer', ...(description ? { description } : {}) },
      });
    const said = await load({ a: body('a', 'Unix time in milliseconds'), b: body('b') });
    expect(said.envelope).toMatchObject({ timestampFormat: 'unix-ms' });
    const plain = await load({ a: body('a'), b: body('b') });
    expect(plain.envelope).toMatchObject({ timestampFormat: 'unix' });
  });

  it("the Standard Webhooks spec's own payload { type, timestamp, data }: id and timestamp from the signed headers", async () => {
    const body = (type: string) =>
      obj({
        type: { type: 'string', const: type },
        timestamp: { type: 'string', format: 'date-time' },
        data,
      });
    const model = await load({ 'user.created': body('user.created'), 'user.deleted': body('user.deleted') });
    expect(model.signature).toEqual({ kind: 'standard-webhooks' });
    expect(model.envelope).toEqual({ kind: 'envelope', absent: ['id'], optional: ['timestamp'] });
  });

  it('an id every schema requires is demanded when the signature carries none, optional when it does', async () => {
    const body = (type: string) => obj({ id: { type: 'string' }, type: { const: type }, data });
    const hmac = await load(
      { a: body('a'), b: body('b') },
      {},
      { signature: { kind: 'hmac', header: 'X-Sig', algorithm: 'sha256', encoding: 'hex' } },
    );
    expect(hmac.envelope).toEqual({ kind: 'envelope', absent: ['timestamp'] });
    const standard = await load({ a: body('a'), b: body('b') });
    expect(standard.envelope).toEqual({ kind: 'envelope', absent: ['timestamp'], optional: ['id'] });
  });

  it('payload-only bodies are bare, told apart by schema, with a warning naming the fix', async () => {
    const model = await load({
      'pet.created': obj({ name: { type: 'string' } }),
      'pet.deleted': obj({ petId: { type: 'integer' } }),
    });
    expect(model.envelope).toEqual({ kind: 'bare' });
    expect(model.selector).toEqual({ kind: 'schema' });
    const warning = model.diagnostics.find((d) => d.code === 'no_type_field');
    expect(warning?.level).toBe('warning');
    expect(warning?.message).toContain(model.file);
    expect(warning?.message).toContain('x-gen-webhooks: { selector:');
    expect(warning?.message).toContain('x-gen-webhooks: { envelope: { kind: envelope } }');
  });

  it('a body type field whose values the schemas do not fix: matched by the keys, path-like keys without the slash', async () => {
    const body = obj({ eventType: { type: 'string' }, eventDate: { type: 'string' }, content: {} }, [
      'eventType',
    ]);
    const model = await load({ '/ACCOUNT_CLOSED': body, '/ACCOUNT_CREATED': body });
    expect(model.envelope).toEqual({ kind: 'bare' });
    expect(model.selector).toEqual({ kind: 'body', field: 'eventType' });
    expect(matches(model)).toEqual({
      '/ACCOUNT_CLOSED': { body: 'ACCOUNT_CLOSED' },
      '/ACCOUNT_CREATED': { body: 'ACCOUNT_CREATED' },
    });
    expect(codes(model)).toContain('type_values_from_keys');
  });

  it('a const shared by every event (object: "event") is not a discriminator', async () => {
    const body = obj({ object: { const: 'event' }, payload: data });
    const model = await load({ a: body, b: obj({ object: { const: 'event' }, payload: data, extra: {} }) });
    expect(model.selector).toEqual({ kind: 'schema' });
  });

  it('a type most bodies carry: selected by it, the others by schema', async () => {
    const typed = (type: string) => obj({ type: { type: 'string', enum: [type] }, data });
    const model = await load({
      'merchant.created': typed('merchant.created'),
      'merchant.updated': typed('merchant.updated'),
      'terminal.assigned': obj({ uniqueTerminalId: { type: 'string' } }),
    });
    expect(model.envelope).toEqual({ kind: 'bare' });
    expect(model.selector).toEqual({ kind: 'body', field: 'type', fallback: 'schema' });
  });

  it('an enum shared by several events matches each by its key', async () => {
    const body = obj({ type: { type: 'string', enum: ['x.created', 'x.updated'] }, data }, ['data']);
    const model = await load({ 'x.created': body, 'x.updated': body });
    expect(model.selector).toEqual({ kind: 'envelope-type' });
    expect(matches(model)).toEqual({ 'x.created': undefined, 'x.updated': undefined });
  });

  it("a declared envelope and selector stay; match values still come from the declared field's consts", async () => {
    const body = (type: string) => obj({ event: { const: type }, data });
    const model = await load(
      { batch_completed: body('batch.completed'), other: body('other') },
      { 'x-gen-webhooks': { envelope: { kind: 'envelope', fields: { type: 'event' } } } },
    );
    expect(model.envelope).toEqual({ kind: 'envelope', fields: { type: 'event' } });
    expect(model.selector).toEqual({ kind: 'envelope-type' });
    expect(matches(model)).toEqual({ batch_completed: { body: 'batch.completed' }, other: undefined });
    expect(codes(model)).not.toContain('envelope_derived');
  });

  it('one event: bare and always selected when the body has no required type field', async () => {
    const model = await load({ newPet: obj({ id: { type: 'integer' }, name: { type: 'string' } }) });
    expect(model.envelope).toEqual({ kind: 'bare' });
    expect(model.selector).toEqual({ kind: 'schema' });
    expect(codes(model)).not.toContain('no_type_field');
  });
});
