/**
 * Microsoft Graph, following https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks
 * (validationToken echoed as text/plain; clientState checked on every notification; lifecycle
 * notifications carry `lifecycleEvent`). Bodies are the documented shapes.
 */
import { describe, expect, it } from 'vitest';
import { expectCode } from '../../test/presets/helpers.js';
import { microsoftGraph } from './microsoft-graph.js';

const clientState = 'secretClientValue';
const notification = (changeType: string, state = clientState) => ({
  subscriptionId: '7f105c7d-2dc5-4530-97cd-4e7ae6534c07',
  subscriptionExpirationDateTime: '2024-11-20T18:23:45.9356913Z',
  changeType,
  resource: 'Users/7a3c1b2d/Messages/AAMkADg',
  resourceData: { '@odata.type': '#Microsoft.Graph.Message', id: 'AAMkADg' },
  clientState: state,
  tenantId: '84bd8158-6d4d-4958-8b9f-9d6445542f95',
});
const body = (...items: object[]) => JSON.stringify({ value: items });

describe('microsoft-graph preset', () => {
  const scheme = microsoftGraph.scheme({ secret: clientState });

  it('checks clientState on every notification of a delivery', async () => {
    const one = body(notification('created'));
    expect((await scheme.verify({ headers: {}, body: one })).id).toMatch(/^microsoft-graph:[0-9a-f]{64}$/);
    await scheme.verify({ headers: {}, body: body(notification('created'), notification('updated')) });
    await expectCode(
      () =>
        scheme.verify({ headers: {}, body: body(notification('created'), notification('updated', 'guess')) }),
      'invalid_signature',
    );
    const { clientState: _, ...without } = notification('deleted');
    await expectCode(() => scheme.verify({ headers: {}, body: body(without) }), 'invalid_signature');
    await expectCode(() => scheme.verify({ headers: {}, body: '{"value":[]}' }), 'invalid_body');
    await microsoftGraph.scheme({ secret: ['old-state', clientState] }).verify({ headers: {}, body: one });
  });

  it('dispatches one notification by its changeType and several as batch', () => {
    expect(microsoftGraph.eventType({}, microsoftGraph.parseBody(body(notification('updated')), {}))).toBe(
      'updated',
    );
    expect(
      microsoftGraph.eventType(
        {},
        microsoftGraph.parseBody(body(notification('created'), notification('deleted')), {}),
      ),
    ).toBe('batch');
  });

  it('echoes validationToken before anything else, and hands lifecycle notifications to the hook', async () => {
    const preflight = microsoftGraph.preflight;
    if (preflight === undefined) throw new Error('graph has a preflight');
    const url =
      'https://example.com/graph?validationToken=Validation%3A%20Testing%20client%20application%20reachability%20for%20subscription%20Request-Id%3A%2025fb3ea2';
    const answer = await preflight(
      { method: 'POST', url, headers: {}, body: new Uint8Array() },
      { secret: clientState },
    );
    expect(answer).toMatchObject({
      status: 200,
      body: 'Validation: Testing client application reachability for subscription Request-Id: 25fb3ea2',
    });
    expect(answer?.headers['content-type']).toMatch(/^text\/plain/);
    expect(
      await preflight(
        { method: 'POST', url: 'https://example.com/graph', headers: {}, body: new Uint8Array() },
        { secret: clientState },
      ),
    ).toBeUndefined();

    // Anything but 1–1024 printable ASCII characters is refused, not echoed.
    for (const token of ['a'.repeat(1025), '<b>\r\n', '']) {
      const refused = await preflight(
        {
          method: 'POST',
          url: `https://example.com/graph?validationToken=${encodeURIComponent(token)}`,
          headers: {},
          body: new Uint8Array(),
        },
        { secret: clientState },
      );
      expect(refused).toEqual({ status: 400, headers: {}, body: '' });
    }

    const seen: unknown[] = [];
    const lifecycle = { ...notification('updated'), lifecycleEvent: 'reauthorizationRequired' };
    const ack = await microsoftGraph.handshake(
      {},
      { value: [lifecycle] },
      {
        secret: clientState,
        onLifecycle: (items) => void seen.push(...items),
      },
    );
    expect(ack).toEqual({ status: 202, headers: {}, body: '' });
    expect(seen).toEqual([lifecycle]);
    expect(
      await microsoftGraph.handshake({}, { value: [notification('updated')] }, { secret: clientState }),
    ).toBeUndefined();
  });
});
