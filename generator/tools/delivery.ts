/**
 * Builds the delivery a generated sender would send: the contract's envelope around the payload
 * (serialised once — replay sends these exact bytes every time), the selector's header when the
 * contract selects by header, and the contract's signature headers. Checks that the contract's own
 * selector picks the intended event from the result, so a payload missing e.g. GitHub's `action`
 * field is caught before it is sent.
 */

import type { SignatureScheme } from '@gen-webhooks/runtime';
import {
  buildEnvelope,
  createIdGenerator,
  createSignatureScheme,
  isWebhookError,
} from '@gen-webhooks/runtime';
import { GeneratorError } from '../errors.js';
import type { ContractModel, EventModel } from '../model.js';
import { selectEvent } from './select-event.js';

export interface PlannedDelivery {
  readonly event: string;
  readonly id: string;
  readonly body: Uint8Array;
  /** Headers every attempt carries (content type, selector header, `--header`s); signature headers come per signing. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
}

export interface PlanInput {
  readonly model: ContractModel;
  readonly event: EventModel;
  readonly payload: unknown;
  /** Extra `name: value` headers (`--header`); they override generated ones of the same name. */
  readonly extraHeaders?: ReadonlyArray<readonly [string, string]>;
  /** Default: a new `msg_…` id. */
  readonly id?: string;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

export function planDelivery(command: string, input: PlanInput): PlannedDelivery {
  const { model, event } = input;
  const now = input.now ?? Date.now;
  const id = input.id ?? createIdGenerator({ now })();
  const type = event.match?.body ?? event.name;
  let bodyValue: unknown;
  try {
    bodyValue = buildEnvelope(model.envelope, { type, data: input.payload, id, now });
  } catch (error) {
    throw runtimeError(command, error);
  }
  const headers: Array<[string, string]> = [['content-type', 'application/json']];
  if (model.selector.kind === 'header')
    headers.push([model.selector.header, event.match?.header ?? event.name]);
  for (const [name, value] of input.extraHeaders ?? []) {
    const index = headers.findIndex(([n]) => n.toLowerCase() === name.toLowerCase());
    if (index >= 0) headers.splice(index, 1);
    headers.push([name, value]);
  }
  const selected = selectEvent(
    model,
    model.selector,
    Object.fromEntries(headers.map(([n, v]) => [n.toLowerCase(), v])),
    bodyValue,
  );
  if (selected.event?.name !== event.name) {
    throw new GeneratorError(
      'invalid_argument',
      `${command}: a receiver of ${model.title} would not recognise this delivery as ${event.name}: ${selected.event ? `it selects ${selected.event.name}` : selected.detail}`,
      {
        expected: `a payload carrying ${event.name}'s selector values ${JSON.stringify(event.match ?? { body: event.name })}`,
      },
    );
  }
  return { event: event.name, id, body: new TextEncoder().encode(JSON.stringify(bodyValue)), headers };
}

export function createScheme(command: string, model: ContractModel, secret: string): SignatureScheme {
  try {
    return createSignatureScheme(model.signature, { secret });
  } catch (error) {
    throw runtimeError(command, error);
  }
}

/** Signs `delivery` at `timestamp` (Unix seconds); returns all headers, signature headers last. */
export async function signDelivery(
  command: string,
  scheme: SignatureScheme,
  delivery: {
    readonly id: string;
    readonly body: Uint8Array;
    readonly headers: ReadonlyArray<readonly [string, string]>;
  },
  timestamp: number,
  url: string,
): Promise<Array<[string, string]>> {
  let signed: Record<string, string>;
  try {
    signed = await scheme.sign({ id: delivery.id, timestamp, body: delivery.body, url });
  } catch (error) {
    throw runtimeError(command, error);
  }
  const replaced = new Set(Object.keys(signed).map((n) => n.toLowerCase()));
  return [
    ...delivery.headers
      .filter(([name]) => !replaced.has(name.toLowerCase()))
      .map(([n, v]): [string, string] => [n, v]),
    ...Object.entries(signed),
  ];
}

/** A runtime `WebhookError` (bad secret, bad config) as one generator line. */
function runtimeError(command: string, error: unknown): unknown {
  if (!isWebhookError(error)) return error;
  const code =
    error.code === 'invalid_secret' || error.code === 'invalid_key' ? 'invalid_argument' : 'invalid_config';
  const hint =
    code === 'invalid_argument'
      ? { expected: 'a secret in the format the contract’s signature scheme uses' }
      : {};
  return new GeneratorError(code, `${command}: ${error.message} [${error.code}]`, { ...hint, cause: error });
}
