/**
 * Attack: capture one signed delivery and post it again inside the replay window, each time with a
 * fresh delivery-id header (`X-Webhook-Id`). If the receiver dedupes on an id the signature does not
 * cover, every copy is a "new" event and the handler runs again (the shipped Petstore contracts did:
 * one capture plus 5 fresh ids ran the handler 6 times).
 *
 * What must hold: the dedupe id comes from signed content only. An `hmac` contract that declares an
 * id header signs it (`{id}.{timestamp}.{body}`, the default), so a changed id fails verification;
 * an id header left out of `signedContent` is never the dedupe id: the envelope id (signed, in the
 * body) is, and a header that disagrees with it is refused (`invalid_signature`, 401). The node:crypto
 * scheme and its Web Crypto twin agree. Whatever the config, a replay never runs the handler twice.
 */
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadContract } from '../../generator/parse/index.js';
import type { Contract, EventMapBase, SignatureConfig } from '../../runtime/contract.js';
import { buildEnvelope } from '../../runtime/envelope.js';
import { createReceiverWith } from '../../runtime/receive/create-receiver.js';
import { createReceiver } from '../../runtime/receive/index.js';
import type { ReceiverParts } from '../../runtime/receive/parts.js';
import { hmacParts as nodeHmacParts } from '../../runtime/receive/parts-node.js';
import { hmacParts as webHmacParts } from '../../runtime/receive/parts-web.js';
import { hmacScheme } from '../../runtime/signing/hmac-scheme.js';
import type { SignatureScheme } from '../../runtime/signing/scheme.js';
import { hmacSchemeWeb } from '../../runtime/signing/web.js';
import { memoryStore } from '../../runtime/stores/index.js';
import { repoRoot } from '../types/typecheck.js';

type HmacConfig = Extract<SignatureConfig, { kind: 'hmac' }>;

const SECRET = 'petstore-replay-secret';
const NOW = 1_732_000_000;
const now = () => NOW * 1000;

/** The shipped contract's wire configuration, with schemas that accept any payload. */
async function shipped(file: string): Promise<Contract<EventMapBase>> {
  const model = await loadContract(path.join(repoRoot, 'schemas', file));
  const events: Record<string, { schema: z.ZodType; match?: { header?: string; body?: string } }> = {};
  for (const event of model.events) {
    events[event.name] = { schema: z.unknown(), ...(event.match ? { match: event.match } : {}) };
  }
  return {
    name: model.name,
    events,
    signature: model.signature,
    envelope: model.envelope,
    selector: model.selector,
  };
}

/** The runtime's createReceiver, or a generated receiver's with these parts. */
function counting(contract: Contract<EventMapBase>, scheme?: SignatureScheme, parts?: ReceiverParts) {
  const runs: string[] = [];
  const handlers = Object.fromEntries(
    Object.keys(contract.events).map((name) => [name, (event: { id: string }) => void runs.push(event.id)]),
  );
  const options = {
    secret: SECRET,
    store: memoryStore(),
    now,
    handlers,
    ...(scheme === undefined ? {} : { scheme }),
  } as never;
  const receiver =
    parts === undefined ? createReceiver(contract, options) : createReceiverWith(contract, options, parts);
  return { receiver, runs };
}

function withHeader(headers: Record<string, string>, name: string, value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(headers)) if (key.toLowerCase() !== name.toLowerCase()) out[key] = v;
  out[name] = value;
  return out;
}

const schemes = {
  'node:crypto': (config: HmacConfig) => hmacScheme(config, { secret: SECRET, now }),
  'Web Crypto': (config: HmacConfig) => hmacSchemeWeb(config, { secret: SECRET, now }),
};

describe.each(['petstore.openapi.yaml', 'petstore.asyncapi.yaml'])('shipped contract %s', (file) => {
  it.each(Object.keys(schemes) as (keyof typeof schemes)[])(
    'one captured delivery replayed with 5 fresh ids runs the handler once (%s)',
    async (impl) => {
      const contract = await shipped(file);
      expect(contract.signature.kind).toBe('hmac');
      const config = contract.signature as HmacConfig;
      expect(config.idHeader).toBeDefined();
      const scheme = schemes[impl](config);
      const { receiver, runs } = counting(contract, scheme);
      const event = Object.keys(contract.events)[0] ?? '';
      const body = JSON.stringify(
        buildEnvelope(contract.envelope, { type: event, data: { petId: 1 }, id: 'msg_captured', now }),
      );
      const headers = await scheme.sign({ id: 'msg_captured', timestamp: NOW, body });
      expect((await receiver.handle({ headers, body })).outcome).toBe('processed');
      for (let i = 0; i < 5; i++) {
        const replay = withHeader(headers, config.idHeader ?? '', `msg_fresh_${i}`);
        const result = await receiver.handle({ headers: replay, body });
        expect(result.status).toBe(401);
        expect(result.error?.code).toBe('invalid_signature');
      }
      expect(runs).toEqual(['msg_captured']);
    },
  );
});

describe('an id header outside signedContent', () => {
  const config: HmacConfig = {
    kind: 'hmac',
    header: 'X-Webhook-Signature',
    algorithm: 'sha256',
    encoding: 'hex',
    prefix: 'sha256=',
    timestampHeader: 'X-Webhook-Timestamp',
    idHeader: 'X-Webhook-Id',
    signedContent: '{timestamp}.{body}',
  };
  const contract: Contract<EventMapBase> = {
    name: 'legacy',
    events: { 'pet.adopted': { schema: z.unknown() } },
    signature: config,
    envelope: { kind: 'envelope' },
    selector: { kind: 'envelope-type' },
  };

  it.each([
    ["the runtime's createReceiver", undefined],
    ["a generated receiver's Node hmacParts", nodeHmacParts],
    ["a generated receiver's Web hmacParts", webHmacParts],
  ])(
    'is never the dedupe id: the signed envelope id is, and a header that disagrees is refused (%s)',
    async (_who, parts) => {
      const { receiver, runs } = counting(contract, undefined, parts);
      const scheme = hmacScheme(config, { secret: SECRET, now });
      const body = JSON.stringify(
        buildEnvelope(contract.envelope, { type: 'pet.adopted', data: {}, id: 'evt_1', now }),
      );
      const headers = await scheme.sign({ id: 'evt_1', timestamp: NOW, body });
      expect(await scheme.verify({ headers, body })).toEqual({ timestamp: NOW });
      expect((await receiver.handle({ headers, body })).outcome).toBe('processed');
      const forged = await receiver.handle({ headers: withHeader(headers, 'X-Webhook-Id', 'evt_2'), body });
      expect(forged.status).toBe(401);
      expect(forged.error?.code).toBe('invalid_signature');
      expect(forged.error?.details).toMatchObject({ header: 'x-webhook-id', pointer: '/id' });
      // Without the header the envelope id still names the event: the replay is a duplicate.
      const { 'X-Webhook-Id': _, ...anonymous } = headers;
      expect((await receiver.handle({ headers: anonymous, body })).outcome).toBe('duplicate');
      expect(runs).toEqual(['evt_1']);
    },
  );
});

describe('any hmac config (property)', () => {
  const headerName = fc.constantFrom('X-Sig', 'X-Signature', 'Signature');
  const configArb: fc.Arbitrary<HmacConfig> = fc
    .record({
      encoding: fc.constantFrom('hex' as const, 'base64' as const),
      algorithm: fc.constantFrom('sha256' as const, 'sha1' as const, 'sha512' as const),
      header: headerName,
      prefix: fc.constantFrom('', 'sha256=', 'v1='),
      timestamp: fc.boolean(),
      // undefined: the default; otherwise a template with or without the id.
      content: fc.constantFrom(undefined, '{body}', '{timestamp}:{body}', '{id}:{body}', '{body}|{id}'),
    })
    .map(({ content, timestamp, ...rest }) => {
      const usesTimestamp = timestamp || content?.includes('{timestamp}') === true;
      return {
        kind: 'hmac',
        ...rest,
        idHeader: 'X-Delivery-Id',
        ...(usesTimestamp ? { timestampHeader: 'X-Delivery-Timestamp' } : {}),
        ...(content === undefined ? {} : { signedContent: content }),
      } satisfies HmacConfig;
    });

  it('a captured delivery replayed with any fresh ids runs the handler once, envelope or bare', async () => {
    await fc.assert(
      fc.asyncProperty(
        configArb,
        fc.constantFrom('envelope' as const, 'bare' as const),
        fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/), { minLength: 1, maxLength: 4 }),
        fc.constantFrom(...(Object.keys(schemes) as (keyof typeof schemes)[])),
        async (config, kind, freshIds, impl) => {
          fc.pre(!freshIds.includes('evt_0'));
          const contract: Contract<EventMapBase> = {
            name: 'prop',
            events: { 'a.b': { schema: z.unknown() } },
            signature: config,
            envelope: { kind },
            selector: kind === 'envelope' ? { kind: 'envelope-type' } : { kind: 'body', field: 'type' },
          };
          const scheme = schemes[impl](config);
          const { receiver, runs } = counting(contract, scheme);
          const body = JSON.stringify(
            kind === 'envelope'
              ? buildEnvelope(contract.envelope, { type: 'a.b', data: {}, id: 'evt_0', now })
              : { type: 'a.b' },
          );
          const headers = await scheme.sign({ id: 'evt_0', timestamp: NOW, body });
          expect((await receiver.handle({ headers, body })).outcome).toBe('processed');
          for (const id of freshIds) {
            const result = await receiver.handle({ headers: withHeader(headers, 'X-Delivery-Id', id), body });
            expect(['duplicate', 'rejected']).toContain(result.outcome);
          }
          expect(runs).toHaveLength(1);
        },
      ),
      { numRuns: 120 },
    );
  });
});
