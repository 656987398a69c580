import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { fixture, generatorError } from '../../test/fixtures/specs/helpers.js';
import type { ContractModel, EventModel } from '../model.js';
import { loadContract } from './index.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-asyncapi-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const event = (model: ContractModel, name: string): EventModel => {
  const found = model.events.find((e) => e.name === name);
  if (!found) throw new Error(`no event ${name} in ${model.events.map((e) => e.name).join(', ')}`);
  return found;
};

/** A message the application receives (documents with both directions). */
const received = (model: ContractModel, name: string): EventModel => {
  const found = model.received?.find((e) => e.name === name);
  if (!found) throw new Error(`no received message ${name}`);
  return found;
};

describe('AsyncAPI 2.6', async () => {
  const file = fixture('asyncapi2/notifications.yaml');
  const model = await loadContract(file);

  it('reads publish/subscribe messages, oneOf members and names them', () => {
    expect(model.format).toBe('asyncapi-2');
    expect(model.version).toBe('1.10');
    // Both directions: `subscribe` messages are the events, `publish` ones the application receives.
    expect(model.events.map((e) => [e.name, e.direction])).toEqual([
      ['audit.audit', 'send'], // no name/messageId: channel + operationId
      ['user.signedup', 'both'], // name; used by two channels → one event
    ]);
    expect(model.received?.map((e) => [e.name, e.direction])).toEqual([
      ['user.deleted', 'receive'], // messageId
      ['user.signedup', 'both'],
      ['user/events.userEvents.2', 'receive'], // unnamed oneOf member: channel + operationId + index
    ]);
  });

  it('reads payload, examples, texts and the message extension', () => {
    const signedUp = event(model, 'user.signedup');
    expect(signedUp).toEqual({
      name: 'user.signedup',
      direction: 'both',
      summary: 'User signed up',
      payload: {
        schema: { $ref: '#/schemas/User' },
        source: `${file}#/components/messages/UserSignedUp/payload`,
      },
      examples: [{ id: 'u_1', email: 'a@example.com' }],
      match: { body: 'user.signed_up' },
      source: `${file}#/components/messages/UserSignedUp`,
    });
    expect(received(model, 'user.deleted').summary).toBe('A user was deleted');
  });

  it('merges trait headers into the message (JSON Merge Patch) and keeps only payload examples', () => {
    const audit = event(model, 'audit.audit');
    expect(audit.headers?.schema).toEqual({
      type: 'object',
      properties: { 'x-own': { type: 'string' }, 'x-trace': { type: 'string' } },
    });
    expect(audit.examples).toEqual([{ action: 'login' }]);
  });

  it('skips messages whose schema format is not JSON Schema, with a warning', () => {
    expect(model.diagnostics).toContainEqual({
      level: 'warning',
      code: 'unsupported_schema_format',
      message:
        'payload schema format "application/vnd.apache.avro;version=1.9.0" is not JSON Schema; message skipped',
      file,
      pointer: '/channels/avro/subscribe/message/payload',
    });
  });
});

describe('AsyncAPI 3.0', async () => {
  const file = fixture('asyncapi3/orders.yaml');
  const model = await loadContract(file);

  it('reads operations → channel → messages, including multi-format JSON schemas', () => {
    expect(model.format).toBe('asyncapi-3');
    // `receiveOrders` lists no messages: it receives every message of its channel.
    expect(model.events.map((e) => [e.name, e.direction])).toEqual([['order.created', 'both']]);
    expect(model.received?.map((e) => [e.name, e.direction])).toEqual([
      ['order.cancelled', 'receive'],
      ['order.created', 'both'],
    ]);
    const cancelled = received(model, 'order.cancelled');
    expect(cancelled.summary).toBe('Order cancelled');
    // A received message is typed whole: no envelope is cut from what clients send.
    expect(cancelled.payload).toEqual({
      schema: {
        type: 'object',
        properties: {
          event: { type: 'string' },
          body: { type: 'object', properties: { reason: { type: 'string' } } },
        },
      },
      source: `${file}#/channels/orders/messages/cancelled/payload/schema`,
    });
    expect(cancelled.examples).toEqual([{ event: 'order.cancelled', body: { reason: 'stock' } }]);
    expect(event(model, 'order.created').headers?.schema).toEqual({
      type: 'object',
      properties: { 'x-request-id': { type: 'string' } },
    });
    expect(model.diagnostics.map((d) => d.code)).toContain('unsupported_schema_format');
  });

  it('refuses an operation message that is not one of its channel messages', async () => {
    const doc = path.join(tmp, 'bad-operation.yaml');
    writeFileSync(
      doc,
      stringify({
        asyncapi: '3.0.0',
        info: { title: 'Bad', version: '1.0.0' },
        channels: { c: { messages: { m: { $ref: '#/components/messages/M' } } } },
        operations: {
          o: {
            action: 'send',
            channel: { $ref: '#/channels/c' },
            messages: [{ $ref: '#/components/messages/M' }],
          },
        },
        components: { messages: { M: { payload: { type: 'object' } } } },
      }),
    );
    const error = await generatorError(() => loadContract(doc));
    expect(error.code).toBe('invalid_document');
    expect(error.file).toBe(doc);
    expect(error.pointer).toBe('/operations/o/messages/0');
    expect(error.expected).toBe(`a $ref to ${doc}#/channels/c/messages/<message>`);
  });

  it('requires a send/receive action', async () => {
    const doc = path.join(tmp, 'bad-action.yaml');
    writeFileSync(
      doc,
      stringify({
        asyncapi: '3.0.0',
        info: { title: 'Bad', version: '1.0.0' },
        channels: { c: { messages: { m: { payload: { type: 'object' } } } } },
        operations: { o: { action: 'publish', channel: { $ref: '#/channels/c' } } },
      }),
    );
    const error = await generatorError(() => loadContract(doc));
    expect(error.code).toBe('invalid_document');
    expect(error.pointer).toBe('/operations/o/action');
    expect(error.expected).toBe('"send" or "receive"');
  });

  it('is no_events when every message is in a foreign schema format', async () => {
    const doc = path.join(tmp, 'avro-only.yaml');
    writeFileSync(
      doc,
      stringify({
        asyncapi: '3.0.0',
        info: { title: 'Avro', version: '1.0.0' },
        channels: {
          c: {
            messages: {
              m: { payload: { schemaFormat: 'application/vnd.apache.avro+json;version=1.9.0', schema: {} } },
            },
          },
        },
        operations: { o: { action: 'receive', channel: { $ref: '#/channels/c' } } },
      }),
    );
    const error = await generatorError(() => loadContract(doc));
    expect(error.code).toBe('no_events');
    expect(error.file).toBe(doc);
    expect(error.message).toContain(
      '1 skipped: payload schema format "application/vnd.apache.avro+json;version=1.9.0" is not JSON Schema; message skipped at #/channels/c/messages/m/payload',
    );
  });
});
