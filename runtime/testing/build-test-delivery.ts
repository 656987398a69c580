/**
 * `testDelivery`'s builder, on whichever crypto the entry binds (`test-delivery.ts`: Web Crypto;
 * `test-delivery-node.ts`: node:crypto, for Twilio): the body exactly as the contract's sender
 * serialises it (its envelope around the payload, once), the selector's header, and the headers of
 * the contract's own `SignatureScheme`, so a receiver under test verifies, parses and dispatches it
 * as a real delivery. Signing may be asynchronous (Web Crypto), so the builder is.
 */
import type { Contract, EventMapBase, PresetName, SignatureConfig } from '../contract.js';
import { buildEnvelope } from '../envelope.js';
import { WebhookError } from '../errors.js';
import { newMessageId } from '../id.js';
import { isPresetName } from '../presets/catalog.js';
import type { PresetSchemeOptions } from '../presets/types.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { presetDelivery } from './preset-bodies.js';
import type { KeyPairTestOptions, TestDelivery, TestDeliveryOptions } from './types.js';

export type SigningSchemeFactory = (config: SignatureConfig, options: PresetSchemeOptions) => SignatureScheme;

const DEFAULT_URL = 'http://localhost/webhooks';
const KEY_PAIR_PRESETS: readonly string[] = ['discord', 'sendgrid', 'plaid'];

export async function buildTestDelivery(
  createScheme: SigningSchemeFactory,
  target: Contract<EventMapBase> | PresetName,
  event: string,
  payload: unknown,
  options: TestDeliveryOptions,
): Promise<TestDelivery> {
  const contract = typeof target === 'string' ? undefined : target;
  const signature = typeof target === 'string' ? presetSignature(target) : target.signature;
  const preset = signature.kind === 'preset' ? signature.preset : undefined;
  if (contract !== undefined && !Object.hasOwn(contract.events, event)) {
    throw new WebhookError(
      'unknown_event',
      `testDelivery: "${event}" is not an event of the ${contract.name} contract`,
      {
        details: { event },
      },
    );
  }
  const id = options.id ?? newMessageId();
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const schemeOptions = schemeOptionsFor(signature, options);
  let bodyValue: unknown;
  let headers: Record<string, string> = { 'content-type': 'application/json' };
  let url = options.url ?? DEFAULT_URL;
  if (preset !== undefined) {
    const secret = 'secret' in options ? options.secret : undefined;
    const shaped = await presetDelivery(preset, payload, {
      event,
      id,
      timestamp,
      secret:
        typeof secret === 'string'
          ? secret
          : secret === undefined
            ? undefined
            : new TextDecoder().decode(secret),
      options,
    });
    bodyValue = shaped.body;
    headers = { ...headers, ...shaped.headers };
    url = shaped.url(url);
  } else if (contract !== undefined) {
    const match = contract.events[event]?.match;
    bodyValue = buildEnvelope(contract.envelope, {
      type: match?.body ?? event,
      data: payload,
      id,
      timestamp: timestamp * 1000,
    });
    if (contract.selector.kind === 'header')
      headers[contract.selector.header.toLowerCase()] = match?.header ?? event;
  }
  const body = JSON.stringify(bodyValue);
  if (body === undefined)
    throw new WebhookError('invalid_payload', `testDelivery: the payload of "${event}" is not JSON`);
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  const signed = await createScheme(signature, schemeOptions).sign({ id, timestamp, body, url });
  for (const [name, value] of Object.entries(signed)) headers[name.toLowerCase()] = value;
  const frozen = Object.freeze({ ...headers });
  return {
    event,
    id,
    timestamp,
    url,
    headers: frozen,
    body,
    request: () => new Request(url, { method: 'POST', headers: frozen, body }),
  };
}

function presetSignature(name: string): SignatureConfig {
  if (!isPresetName(name)) {
    throw new WebhookError(
      'invalid_config',
      `testDelivery: ${JSON.stringify(name)} is neither a contract nor a preset name`,
      {
        details: { option: 'contract', expected: 'a Contract or a preset name' },
      },
    );
  }
  return { kind: 'preset', preset: name };
}

/** The scheme options that sign as the receiver under test expects (a key pair's private half signs). */
function schemeOptionsFor(signature: SignatureConfig, options: TestDeliveryOptions): PresetSchemeOptions {
  const { id: _id, timestamp: _timestamp, url: _url, headers: _headers, ...rest } = options;
  const keyPair =
    signature.kind === 'asymmetric' ||
    (signature.kind === 'preset' && KEY_PAIR_PRESETS.includes(signature.preset));
  if (!keyPair) {
    if (signature.kind !== 'none' && (!('secret' in options) || options.secret === undefined)) {
      throw new WebhookError(
        'invalid_config',
        'testDelivery: options.secret is required (the secret the receiver under test uses)',
        {
          details: { option: 'secret', expected: 'a string or bytes' },
        },
      );
    }
    return rest as PresetSchemeOptions;
  }
  if (!('privateKey' in options) || options.privateKey === undefined || options.publicKey === undefined) {
    throw new WebhookError(
      'invalid_config',
      'testDelivery: this contract is signed with a key pair: pass options.privateKey and options.publicKey (a test key pair; the receiver under test gets the public key)',
      {
        details: { option: 'privateKey', expected: 'a test key pair { privateKey, publicKey }' },
      },
    );
  }
  const { privateKey, publicKey, ...presetOptions } = rest as Omit<
    KeyPairTestOptions,
    'id' | 'timestamp' | 'url' | 'headers'
  >;
  if (signature.kind === 'asymmetric') return { ...presetOptions, secret: privateKey as string, publicKey };
  const signingKey = privateKey as string | Uint8Array;
  if (signature.preset === 'plaid') {
    return { ...presetOptions, secret: 'test', signingKey, getKey: () => publicKey as never };
  }
  return { ...presetOptions, secret: publicKey as string | Uint8Array, signingKey };
}
