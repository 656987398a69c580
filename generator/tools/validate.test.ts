import { describe, expect, it } from 'vitest';
import { GeneratorError } from '../errors.js';
import type { ContractModel } from '../model.js';
import { createPayloadValidator, formatIssues } from './validate.js';

const model: ContractModel = {
  name: 'shop',
  title: 'Shop',
  version: '1.0.0',
  format: 'openapi-3.1',
  file: 'shop.yaml',
  signature: { kind: 'standard-webhooks' },
  envelope: { kind: 'envelope' },
  selector: { kind: 'envelope-type' },
  diagnostics: [],
  schemas: {
    Money: {
      source: 'shop.yaml#/components/schemas/Money',
      schema: {
        type: 'object',
        required: ['amount', 'currency'],
        properties: {
          amount: { type: 'integer', minimum: 0 },
          currency: { type: 'string', pattern: '^[A-Z]{3}$' },
        },
        additionalProperties: false,
      },
    },
  },
  events: [
    {
      name: 'order.paid',
      source: 'shop.yaml#/webhooks/order.paid/post',
      examples: [],
      payload: {
        source: 'shop.yaml#/webhooks/order.paid/post/requestBody',
        schema: {
          type: 'object',
          required: ['orderId', 'total'],
          properties: {
            orderId: { type: 'string', format: 'uuid' },
            total: { $ref: '#/schemas/Money' },
            channel: { enum: ['web', 'store'] },
            'a/b': { type: 'integer', format: 'int64' },
          },
          discriminator: { propertyName: 'x' },
          'x-internal': true,
        },
      },
    },
  ],
};

describe('createPayloadValidator', () => {
  const validator = createPayloadValidator(model);

  it('accepts a valid payload (model-local refs, formats, OpenAPI keywords)', () => {
    const payload = {
      orderId: '0d6cf1c4-53d0-4f5a-9b35-0c3b5f0f8a11',
      total: { amount: 10, currency: 'EUR' },
      'a/b': 3,
    };
    expect(validator.validate('order.paid', payload)).toEqual([]);
  });

  it('reports JSON pointers into the payload', () => {
    const issues = validator.validate('order.paid', {
      orderId: 'nope',
      total: { amount: -1, currency: 'EUR', extra: 1 },
      channel: 'fax',
      'a/b': 'x',
    });
    expect(issues).toEqual(
      expect.arrayContaining([
        { pointer: '/orderId', message: 'must match format "uuid"' },
        { pointer: '/total/amount', message: 'must be >= 0' },
        { pointer: '/total/extra', message: 'is not allowed (additionalProperties: false)' },
        { pointer: '/channel', message: 'must be one of "web", "store"' },
        { pointer: '/a~1b', message: 'must be integer' },
      ]),
    );
    expect(validator.validate('order.paid', {})).toEqual([
      { pointer: '/orderId', message: 'is required' },
      { pointer: '/total', message: 'is required' },
    ]);
    expect(formatIssues(validator.validate('order.paid', {}), 1)).toBe('/orderId is required; and 1 more');
  });

  it('rejects an unknown event with the list of valid ones', () => {
    expect(() => validator.validate('order.lost', {})).toThrowError(GeneratorError);
    try {
      validator.validate('order.lost', {});
    } catch (error) {
      expect((error as GeneratorError).expected).toBe('one of order.paid');
    }
  });
});
