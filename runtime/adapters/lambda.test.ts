/**
 * The Lambda adapter against events shaped like AWS's documented samples (test/fixtures/lambda-events.ts)
 * for REST APIs, HTTP APIs (payload 1.0 and 2.0) and Function URLs, each with a plain and a base64 body:
 * real receivers verify Standard Webhooks and GitHub signatures over the bytes the event carries.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type HttpInput, LAMBDA_EVENTS } from '../../test/fixtures/lambda-events.js';
import { delivery, petstore, SECRET } from '../../test/receiver/fixtures.js';
import type { WebhookError } from '../errors.js';
import { providerContract } from '../presets/index.js';
import { createReceiver as createNodeReceiver } from '../receive/receiver-node.js';
import { createReceiver } from '../receive/receiver-web.js';
import type { ReceiveRequest, ReceiveResult } from '../receive/types.js';
import { standardWebhookHeaders, verifyStandardWebhook } from '../signing/standard-webhooks.js';
import { memoryStore } from '../stores/memory.js';
import { lambdaHandler } from './lambda.js';
import type { LambdaHttpEvent } from './lambda-types.js';
import type { ReceiverLike } from './types.js';

const kinds = Object.entries(LAMBDA_EVENTS);
const encodings = [
  ['plain', false],
  ['base64', true],
] as const;
const json = (body: string) => JSON.parse(body) as Record<string, unknown>;

function petstoreReceiver() {
  const handled: string[] = [];
  const receiver = createReceiver(petstore, {
    secret: SECRET,
    store: memoryStore(),
    handlers: { 'pet.adopted': (event) => void handled.push(event.data.petId) },
  });
  return { handler: lambdaHandler(receiver), handled };
}

/** A receiver that verifies Standard Webhooks over whatever bytes it is handed, and keeps them. */
function bytesReceiver(): ReceiverLike & { seen: ReceiveRequest[] } {
  const seen: ReceiveRequest[] = [];
  const answer = (status: number, error?: WebhookError): ReceiveResult => ({
    status,
    body: JSON.stringify({ error: error?.code }),
    headers: { 'content-type': 'application/json' },
    outcome: error === undefined ? 'processed' : 'rejected',
    ...(error === undefined ? {} : { error }),
  });
  return {
    seen,
    maxBodyBytes: 1024 * 1024,
    reject: (error) => answer((error as WebhookError).status, error as WebhookError),
    async handle(request) {
      seen.push(request);
      try {
        verifyStandardWebhook({ headers: request.headers, body: request.body, secret: SECRET });
        return answer(200);
      } catch (error) {
        return answer((error as WebhookError).status, error as WebhookError);
      }
    },
  };
}

function signedBytes(body: Uint8Array, id = 'msg_bytes'): HttpInput {
  const timestamp = Math.floor(Date.now() / 1000);
  return { headers: standardWebhookHeaders({ id, timestamp, body, secret: SECRET }), body, base64: true };
}

describe.each(kinds)('%s event', (_, makeEvent) => {
  it.each(encodings)(
    'a Standard Webhooks delivery with a %s body verifies; tampered, 401',
    async (_, base64) => {
      const { handler, handled } = petstoreReceiver();
      // Non-ASCII text: a Latin-1 or lossy decode of the base64 bytes would break the signature.
      const d = delivery('pet.adopted', { petId: 'rex-é-🐕', adopter: { name: 'Åda' } });
      const result = await handler(makeEvent({ headers: d.headers, body: d.body, base64 }));
      expect(result).toEqual({
        statusCode: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'processed' }),
        isBase64Encoded: false,
      });
      expect(handled).toEqual(['rex-é-🐕']);
      const again = await handler(makeEvent({ headers: d.headers, body: d.body, base64 }));
      expect(json(again.body)).toEqual({ status: 'already processed' });

      const tampered = await handler(
        makeEvent({ headers: d.headers, body: d.body.replace('rex', 'rey'), base64 }),
      );
      expect(tampered.statusCode).toBe(401);
      expect(json(tampered.body)).toMatchObject({ error: { code: 'invalid_signature' } });
      expect(handled).toEqual(['rex-é-🐕']);
    },
  );

  it.each(encodings)('a GitHub delivery with a %s body verifies; tampered, 401', async (_, base64) => {
    const secret = 'github-lambda-secret';
    const pushed: unknown[] = [];
    const receiver = createNodeReceiver(providerContract('github', { push: z.object({ ref: z.string() }) }), {
      secret,
      store: memoryStore(),
      handlers: { push: (event) => void pushed.push(event.data) },
    });
    const handler = lambdaHandler(receiver);
    const body = JSON.stringify({ ref: 'refs/heads/main', pusher: { name: 'Zoë' } });
    const headers = {
      'X-GitHub-Event': 'push',
      'X-GitHub-Delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'X-Hub-Signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      'Content-Type': 'application/json',
    };
    const ok = await handler(makeEvent({ headers, body, base64 }));
    expect([ok.statusCode, json(ok.body)]).toEqual([200, { status: 'processed' }]);
    expect(pushed).toEqual([{ ref: 'refs/heads/main' }]); // zod's object drops `pusher`
    const tampered = await handler(makeEvent({ headers, body: body.replace('main', 'mainx'), base64 }));
    expect(tampered.statusCode).toBe(401);
  });

  it('hands the receiver the exact bytes of a base64 body that is not UTF-8', async () => {
    const bytes = new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x7b, 0xed, 0xa0, 0x80]);
    const receiver = bytesReceiver();
    const result = await lambdaHandler(receiver)(makeEvent(signedBytes(bytes)));
    expect(result.statusCode).toBe(200);
    expect(receiver.seen[0]?.body).toEqual(bytes);
    // Through the real receiver the signature passes too: only the JSON parse refuses the bytes.
    const { handler } = petstoreReceiver();
    const real = await handler(makeEvent(signedBytes(bytes)));
    expect([real.statusCode, json(real.body)]).toMatchObject([400, { error: { code: 'invalid_body' } }]);
  });

  it('answers a GET handshake from the query string (Meta hub.challenge)', async () => {
    const receiver = createNodeReceiver(providerContract('meta', {}), {
      secret: 'meta-app-secret',
      preset: { verifyToken: 'meatyhamhock' },
      store: memoryStore(),
      handlers: {},
    } as never);
    const handler = lambdaHandler(receiver);
    const query = (token: string) =>
      [
        ['hub.mode', 'subscribe'],
        ['hub.verify_token', token],
        ['hub.challenge', '1158201444'],
      ] as const;
    const ok = await handler(makeEvent({ method: 'GET', query: query('meatyhamhock') }));
    expect([ok.statusCode, ok.body]).toEqual([200, '1158201444']);
    const wrong = await handler(makeEvent({ method: 'GET', query: query('wrong') }));
    expect(wrong.statusCode).toBe(403);
  });

  it('passes cookies, repeated headers, the method and the URL as called', async () => {
    const receiver = bytesReceiver();
    await lambdaHandler(receiver)(
      makeEvent({
        method: 'PUT',
        headers: { 'X-Trace': 'a' },
        cookies: ['session=1', 'theme=dark'],
        query: [['x', 'a b']],
      }),
    );
    const request = receiver.seen[0] as ReceiveRequest;
    const headers = request.headers as Record<string, string | string[]>;
    expect(request.method).toBe('PUT');
    expect([headers['x-trace']].flat()).toEqual(['a']);
    expect([headers['cookie']].flat()).toEqual(['session=1; theme=dark']);
    expect(request.body).toEqual(new Uint8Array(0));
    expect(new URL(request.url as string).searchParams.get('x')).toBe('a b');
    expect(new URL(request.url as string).pathname).toMatch(/^(\/prod)?\/hooks$/);
  });

  it('refuses a body above maxBodyBytes with 413 before handling it', async () => {
    const receiver = { ...bytesReceiver(), maxBodyBytes: 16 };
    const result = await lambdaHandler(receiver)(makeEvent(signedBytes(new Uint8Array(17))));
    expect(result.statusCode).toBe(413);
  });
});

it('REST API URLs keep the stage; publicUrl replaces the URL', async () => {
  const receiver = bytesReceiver();
  await lambdaHandler(receiver)(LAMBDA_EVENTS['REST API']({ query: [['a', '1']] }));
  expect(receiver.seen[0]?.url).toBe('https://abcdef123.execute-api.us-east-1.amazonaws.com/prod/hooks?a=1');
  await lambdaHandler(receiver, { publicUrl: () => 'https://hooks.example.com/in' })(
    LAMBDA_EVENTS['HTTP API payload 2.0'](),
  );
  expect(receiver.seen[1]?.url).toBe('https://hooks.example.com/in');
});

it('REST API: a repeated header keeps every value (multiValueHeaders)', async () => {
  const receiver = bytesReceiver();
  const event = LAMBDA_EVENTS['REST API']({ headers: { Accept: 'b' } });
  await lambdaHandler(receiver)({
    ...event,
    multiValueHeaders: { ...event.multiValueHeaders, Accept: ['a', 'b'] },
  });
  expect(receiver.seen[0]?.headers).toMatchObject({ accept: ['a', 'b'] });
});

it('any body bytes, base64-encoded, verify in every event shape', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ maxLength: 512 }),
      fc.constantFrom(...kinds),
      async (bytes, [, make]) => {
        const receiver = bytesReceiver();
        const result = await lambdaHandler(receiver)(make(signedBytes(bytes)));
        expect(result.statusCode).toBe(200);
        expect(receiver.seen[0]?.body).toEqual(bytes);
      },
    ),
    { numRuns: 200 },
  );
});

describe('an event that is not an HTTP request', () => {
  const { handler } = petstoreReceiver();
  it.each([
    ['null', null],
    ['an empty object', {}],
    ['no requestContext', { httpMethod: 'POST', body: '{}' }],
    ['an SQS event', { Records: [{ messageId: '1', body: '{}', eventSource: 'aws:sqs' }] }],
    ['a requestContext without a method', { version: '2.0', requestContext: {} }],
  ])('%s: 400 invalid_body naming the triggers it expects', async (_, event) => {
    const result = await handler(event as unknown as LambdaHttpEvent);
    expect(result.statusCode).toBe(400);
    expect(json(result.body)).toMatchObject({
      error: { code: 'invalid_body', message: expect.stringContaining('API Gateway') },
    });
  });

  it('a body marked base64 that is not: 400 invalid_body', async () => {
    const event = LAMBDA_EVENTS['Function URL']({ body: 'not base64!' });
    const result = await handler({ ...event, isBase64Encoded: true });
    expect([result.statusCode, json(result.body)]).toMatchObject([400, { error: { code: 'invalid_body' } }]);
  });
});
