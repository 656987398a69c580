import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { Contract } from '../contract.js';
import { type ProviderEvents, providerContract, type StripeEvent } from './provider-contract.js';

const PaymentIntent = z.object({
  id: z.string(),
  amount: z.number().int(),
  currency: z.string().default('usd'),
});

function validate(contract: Contract, event: string, value: unknown) {
  const definition = contract.events[event];
  if (definition === undefined) throw new Error(`no ${event}`);
  return definition.schema['~standard'].validate(value);
}

describe('providerContract', () => {
  const stripe = providerContract('stripe', { 'payment_intent.succeeded': PaymentIntent });

  it('builds a Contract from the preset parts', () => {
    expect(stripe).toMatchObject({
      name: 'stripe',
      signature: { kind: 'preset', preset: 'stripe' },
      envelope: { kind: 'bare' },
      selector: { kind: 'body', field: 'type' },
      events: { 'payment_intent.succeeded': { match: { body: 'payment_intent.succeeded' } } },
    });
    const github = providerContract(
      'github',
      { 'issues.opened': z.object({ action: z.literal('opened') }) },
      { name: 'gh' },
    );
    expect(github.name).toBe('gh');
    expect(github.events['issues.opened'].match).toEqual({ header: 'issues', body: 'opened' });
  });

  it('types handlers as the full Stripe event with a typed data.object', () => {
    type Events = ProviderEvents<'stripe', { 'payment_intent.succeeded': typeof PaymentIntent }>;
    expectTypeOf<Events['payment_intent.succeeded']>().toEqualTypeOf<
      StripeEvent<'payment_intent.succeeded', { id: string; amount: number; currency: string }>
    >();
    expectTypeOf<Events['payment_intent.succeeded']['data']['object']['amount']>().toEqualTypeOf<number>();
  });

  it('validates data.object with the user schema (defaults applied) and the outer Stripe fields', async () => {
    const event = {
      id: 'evt_1',
      object: 'event',
      type: 'payment_intent.succeeded',
      created: 1_732_000_000,
      data: { object: { id: 'pi_1', amount: 100 }, previous_attributes: { status: 'processing' } },
    };
    const ok = await validate(stripe, 'payment_intent.succeeded', event);
    expect(ok.issues).toBeUndefined();
    expect(ok).toEqual({
      value: { ...event, data: { ...event.data, object: { id: 'pi_1', amount: 100, currency: 'usd' } } },
    });
    // The input is not mutated.
    expect(event.data.object).toEqual({ id: 'pi_1', amount: 100 });

    const bad = await validate(stripe, 'payment_intent.succeeded', {
      ...event,
      created: 'yesterday',
      data: { object: { id: 'pi_1', amount: 1.5 } },
    });
    expect(bad.issues?.map((issue) => issue.path)).toEqual([['created'], ['data', 'object', 'amount']]);
    const missing = await validate(stripe, 'payment_intent.succeeded', {
      id: 'evt',
      type: 't',
      created: 1,
      data: 'x',
    });
    expect(missing.issues?.map((issue) => issue.path)).toEqual([['data']]);
  });

  it('validates Slack inner events', async () => {
    const slack = providerContract('slack', {
      app_mention: z.object({ type: z.literal('app_mention'), text: z.string() }),
    });
    const body = {
      type: 'event_callback',
      event_id: 'Ev1',
      event_time: 1,
      event: { type: 'app_mention', text: 'hi' },
    };
    expect(await validate(slack, 'app_mention', body)).toEqual({ value: body });
    const bad = await validate(slack, 'app_mention', { ...body, event: { type: 'app_mention' } });
    expect(bad.issues?.map((issue) => issue.path)).toEqual([['event', 'text']]);
  });

  it('validates Discord webhook event data and types handlers with it', async () => {
    const Authorized = z.object({ user: z.object({ id: z.string() }), scopes: z.array(z.string()) });
    const discord = providerContract('discord', { APPLICATION_AUTHORIZED: Authorized });
    type Events = ProviderEvents<'discord', { APPLICATION_AUTHORIZED: typeof Authorized }>;
    expectTypeOf<Events['APPLICATION_AUTHORIZED']['event']['data']['scopes']>().toEqualTypeOf<string[]>();
    expectTypeOf<
      Events['APPLICATION_AUTHORIZED']['event']['type']
    >().toEqualTypeOf<'APPLICATION_AUTHORIZED'>();
    const body = {
      version: 1,
      application_id: '42',
      type: 1,
      event: {
        type: 'APPLICATION_AUTHORIZED',
        timestamp: '2026-11-30T11:00:00Z',
        data: { user: { id: '7' }, scopes: ['bot'] },
      },
    };
    expect(await validate(discord, 'APPLICATION_AUTHORIZED', body)).toEqual({ value: body });
    const bad = await validate(discord, 'APPLICATION_AUTHORIZED', {
      ...body,
      type: 0,
      event: { ...body.event, data: { user: {} } },
    });
    expect(bad.issues?.map((issue) => issue.path)).toEqual([
      ['type'],
      ['event', 'data', 'user', 'id'],
      ['event', 'data', 'scopes'],
    ]);
  });

  it('refuses event names the preset cannot select and non-schemas', () => {
    expect(() => providerContract('discord', { nope: z.object({}) })).toThrowError(
      expect.objectContaining({ code: 'invalid_config' }),
    );
    expect(() => providerContract('stripe', { x: {} as typeof PaymentIntent })).toThrowError(
      expect.objectContaining({ code: 'invalid_config' }),
    );
  });
});
