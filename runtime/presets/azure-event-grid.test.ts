/**
 * Azure Event Grid, following https://learn.microsoft.com/en-us/azure/event-grid/webhook-event-delivery
 * (SubscriptionValidationEvent answered with { validationResponse }; the CloudEvents 1.0 abuse
 * protection OPTIONS with WebHook-Request-Origin answered with WebHook-Allowed-Origin and
 * WebHook-Allowed-Rate) and https://learn.microsoft.com/en-us/azure/event-grid/security-authentication
 * (a secret in the endpoint URL's query or in a delivery-property header).
 */
import { describe, expect, it } from 'vitest';
import { expectCode } from '../../test/presets/helpers.js';
import { azureEventGrid } from './azure-event-grid.js';

const secret = 'eg-endpoint-secret-4f1d';
const url = `https://example.com/events?code=${secret}`;
const blobCreated = {
  id: '831e1650-001e-001b-66ab-eeb76e069631',
  topic: '/subscriptions/s1/resourceGroups/r/providers/Microsoft.Storage/storageAccounts/acct',
  subject: '/blobServices/default/containers/c/blobs/b.png',
  eventType: 'Microsoft.Storage.BlobCreated',
  eventTime: '2024-11-19T07:06:40.000Z',
  data: { api: 'PutBlockList', contentType: 'image/png' },
  dataVersion: '',
  metadataVersion: '1',
};

describe('azure-event-grid preset', () => {
  const scheme = azureEventGrid.scheme({ secret });

  it('checks the endpoint secret (query by default, or a header) and keys on the event id', async () => {
    const body = JSON.stringify([blobCreated]);
    expect(await scheme.verify({ headers: {}, body, url })).toEqual({ id: blobCreated.id });
    await expectCode(
      () => scheme.verify({ headers: {}, body, url: 'https://example.com/events?code=guess' }),
      'invalid_signature',
    );
    await expectCode(
      () => scheme.verify({ headers: {}, body, url: 'https://example.com/events' }),
      'invalid_signature',
    );
    const byHeader = azureEventGrid.scheme({ secret, secretIn: { header: 'X-Event-Secret' } });
    await byHeader.verify({ headers: { 'x-event-secret': secret }, body });
    await expectCode(() => byHeader.verify({ headers: {}, body, url }), 'invalid_signature');
    const parsed = azureEventGrid.parseBody(body, {}) as { type: string; events: unknown[] };
    expect(parsed).toEqual({ type: 'Microsoft.Storage.BlobCreated', events: [blobCreated] });
  });

  it('reads CloudEvents (structured and batched) by their type', async () => {
    const cloudEvent = {
      specversion: '1.0',
      id: 'ce-1',
      type: 'Contoso.Items.ItemReceived',
      source: '/contoso/items',
      data: {},
    };
    const one = JSON.stringify(cloudEvent);
    expect((await scheme.verify({ headers: {}, body: one, url })).id).toBe('ce-1');
    expect(azureEventGrid.eventType({}, azureEventGrid.parseBody(one, {}))).toBe(
      'Contoso.Items.ItemReceived',
    );
    const two = JSON.stringify([cloudEvent, { ...cloudEvent, id: 'ce-2' }]);
    expect((await scheme.verify({ headers: {}, body: two, url })).id).toMatch(/^azure-event-grid-batch:/);
    expect(azureEventGrid.eventType({}, azureEventGrid.parseBody(two, {}))).toBe('batch');
  });

  it('answers SubscriptionValidationEvent with the validation code', async () => {
    const validation = [
      {
        id: '2d1781af-3a4c-4d7c-bd0c-e34b19da4e66',
        topic: '/subscriptions/s1',
        subject: '',
        data: {
          validationCode: '512d38b6-c7b8-40c8-89fe-f46f9e9622b6',
          validationUrl: 'https://rp-eastus2.eventgrid.azure.net/x',
        },
        eventType: 'Microsoft.EventGrid.SubscriptionValidationEvent',
        eventTime: '2018-01-25T22:12:19.4556811Z',
        metadataVersion: '1',
        dataVersion: '1',
      },
    ];
    const answer = await azureEventGrid.handshake(
      {},
      azureEventGrid.parseBody(JSON.stringify(validation), {}),
    );
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer?.body ?? '')).toEqual({
      validationResponse: '512d38b6-c7b8-40c8-89fe-f46f9e9622b6',
    });
    expect(
      await azureEventGrid.handshake({}, azureEventGrid.parseBody(JSON.stringify([blobCreated]), {})),
    ).toBeUndefined();
  });

  it('answers the CloudEvents OPTIONS handshake for allowed origins only, behind the secret', async () => {
    const preflight = azureEventGrid.preflight;
    if (preflight === undefined) throw new Error('event grid has a preflight');
    const request = (origin: string, at = url) => ({
      method: 'OPTIONS',
      url: at,
      headers: { 'WebHook-Request-Origin': origin },
      body: new Uint8Array(),
    });
    const ok = await preflight(request('eventgrid.azure.net'), { secret });
    expect(ok).toEqual({
      status: 200,
      headers: {
        'webhook-allowed-origin': 'eventgrid.azure.net',
        'webhook-allowed-rate': '*',
        allow: 'POST, OPTIONS',
      },
      body: '',
    });
    await expectCode(() => preflight(request('evil.example.com'), { secret }), 'invalid_signature', 403);
    await expectCode(
      () => preflight(request('eventgrid.azure.net', 'https://example.com/events'), { secret }),
      'invalid_signature',
      401,
    );
    const any = await preflight(request('eventemitter.example.com'), {
      secret,
      allowedOrigins: '*',
      allowedRate: 120,
    });
    expect(any?.headers['webhook-allowed-rate']).toBe('120');
    expect(
      await preflight({ ...request('eventgrid.azure.net'), method: 'POST' }, { secret }),
    ).toBeUndefined();
  });
});
