/**
 * The two Petstore contracts (schemas/, written in OpenAPI 3.1 and AsyncAPI 3.0) describe the same
 * webhooks, so their models must agree on everything but the format and the source locations.
 */
import { describe, expect, it } from 'vitest';
import { fixture } from '../../test/fixtures/specs/helpers.js';
import type { ContractModel } from '../model.js';
import { loadContracts } from './index.js';

const openapi = fixture('../../../schemas/petstore.openapi.yaml');
const asyncapi = fixture('../../../schemas/petstore.asyncapi.yaml');

/** AsyncAPI's Schema Object discriminator has no `mapping`; the OpenAPI file spells one out. */
const withoutMapping = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (key, v: unknown) =>
    key === 'discriminator' && v !== null && typeof v === 'object' ? { ...v, mapping: undefined } : v,
  );

const comparable = (model: ContractModel) => ({
  title: model.title,
  version: model.version,
  signature: model.signature,
  envelope: model.envelope,
  selector: model.selector,
  retry: model.retry,
  events: model.events.map(({ source: _s, payload, headers, ...rest }) => ({
    ...rest,
    payload: payload.schema,
    headers: headers?.schema,
  })),
  schemas: withoutMapping(
    Object.fromEntries(Object.entries(model.schemas).map(([key, value]) => [key, value.schema])),
  ),
});

describe('Petstore in OpenAPI 3.1 and AsyncAPI 3.0', () => {
  it('gives the same model', async () => {
    const { contracts, diagnostics } = await loadContracts([openapi, asyncapi]);
    const [fromOpenApi, fromAsyncApi] = contracts;
    if (!fromOpenApi || !fromAsyncApi) throw new Error('both contracts must load');
    expect(fromOpenApi.name).toBe('petstore-openapi');
    expect(fromAsyncApi.name).toBe('petstore-asyncapi');
    expect(fromOpenApi.events.map((e) => e.name)).toEqual([
      'order.completed',
      'order.created',
      'payment.failed',
      'payment.succeeded',
      'pet.adopted',
      'pet.status_changed',
    ]);
    expect(comparable(fromAsyncApi)).toEqual(comparable(fromOpenApi));
    expect(fromOpenApi.retry).toEqual({
      kind: 'exponential',
      initialDelay: 1,
      factor: 2,
      maxDelay: 512,
      maxAttempts: 11,
    });
    expect(diagnostics.filter((d) => d.level === 'warning')).toEqual([]);
  });
});
