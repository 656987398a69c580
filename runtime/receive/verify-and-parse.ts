/**
 * `createParser(contract, options).verifyAndParse(request)`: the receiver's verify → window → parse →
 * select → validate steps as one call that returns the typed event instead of running a handler —
 * the `constructEvent` / `unwrap` shape Stripe, Svix and Stainless SDK users know. No store, no
 * dedupe, no answer: the caller decides what to do with the event (and answers `error.status` on a
 * `WebhookError`, the only error it throws).
 */

import { readRequestBody } from '../adapters/web.js';
import { bodyTooLarge, toBytes } from '../bytes.js';
import type { Contract, EventMapBase, EventName, StandardSchemaV1 } from '../contract.js';
import { WebhookError } from '../errors.js';
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import type { PresetOptions } from '../presets/types.js';
import type { HeadersInput, PublicKeyInput, RawBody, Secret, SignatureScheme } from '../signing/scheme.js';
import { DEFAULT_MAX_BODY_BYTES } from './create-receiver.js';
import { createDispatcher } from './dispatch.js';
import { type ReceiverParts, rulesFor } from './parts.js';
import { policyCheck } from './policy.js';
import { toWebhookError } from './respond.js';
import type { ReceiveRequest } from './types.js';

/** One verified event, narrowed on `type`: `if (event.type === 'pet.adopted') event.data.petId`. */
export type ParsedEvent<M extends EventMapBase> = {
  readonly [K in EventName<M>]: {
    /** The delivery id header (`webhook-id`, …), else the envelope id, else `sha256:<body digest>`. */
    readonly id: string;
    readonly type: K;
    /** When the event happened (envelope) or was signed (signature header), if known. */
    readonly timestamp: Date | undefined;
    readonly data: M[K];
  };
}[EventName<M>];

export interface ParserOptions {
  /** Signing secret(s); several during a rotation. Required unless `scheme` is given or the contract is unsigned. */
  readonly secret?: Secret | readonly Secret[];
  /** The sender's public key(s), for a contract signed with a key pair (kind `asymmetric`). */
  readonly publicKey?: PublicKeyInput | readonly PublicKeyInput[];
  /** A scheme to use instead of the contract's. */
  readonly scheme?: SignatureScheme;
  /** Provider-specific options for preset schemes. */
  readonly preset?: PresetOptions;
  /** Replay window in seconds. Default 300. */
  readonly tolerance?: number;
  /** Clock in ms since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** Largest accepted body. Default 5 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * `strict` (default): an invalid payload throws `invalid_payload`. `off`: `data` is the payload as
   * received. Unlike the receiver (default `report`), the parser hands its value to your code with no
   * `issues` and no logger, and your `catch` chooses the answer (2xx to a provider that must not retry).
   */
  readonly validation?: 'strict' | 'off';
}

/** A Web `Request`, or the parts of one: the raw body (bytes or text, never parsed JSON) and headers. */
export type ParseInput = Request | ReceiveRequest;

export interface Parser<M extends EventMapBase = EventMapBase> {
  /**
   * Verifies the signature and replay window, reads the envelope and validates the payload. Throws
   * `WebhookError` only: 401 `invalid_signature`, 400 for a bad envelope, a payload that does not
   * match the contract (`invalid_payload`, with `details.issues`) or an event type the contract does
   * not define (`unknown_event`, with `details.type`: answer it 2xx if the sender should not retry).
   */
  verifyAndParse(input: ParseInput): Promise<ParsedEvent<M>>;
}

function isRequest(input: ParseInput): input is Request {
  return typeof (input as Request).arrayBuffer === 'function' && typeof (input as Request).url === 'string';
}

const PARSER_KEYS = {
  secret: true,
  publicKey: true,
  scheme: true,
  preset: true,
  tolerance: true,
  now: true,
  maxBodyBytes: true,
  validation: true,
} as const satisfies KnownKeys<ParserOptions>;

/** `parts` as for `createReceiverWith`: the entries' `createParser` passes them all. */
export function createParserWith<M extends EventMapBase>(
  contract: Contract<M>,
  options: ParserOptions,
  parts: ReceiverParts,
): Parser<M> {
  checkKnownOptions('createParser', options, PARSER_KEYS);
  const now = options.now ?? Date.now;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const { scheme, parseBody, eventId } = rulesFor(contract, options, parts, 'createParser', now);
  const dispatch = createDispatcher(contract, parts);
  // The receiver's strict policy (or none), deliberately not its `report` default: see `validation`.
  const check = policyCheck(
    { validation: options.validation ?? 'strict' },
    contract.events as { readonly [name: string]: { readonly schema: StandardSchemaV1 } },
  );

  const parse = async (headers: HeadersInput, bytes: Uint8Array, url: string | undefined) => {
    if (bytes.byteLength > maxBodyBytes) throw bodyTooLarge(maxBodyBytes);
    const verified = await scheme.verify(
      url === undefined ? { headers, body: bytes } : { headers, body: bytes, url },
    );
    const body = parseBody(bytes, headers);
    const x = dispatch(body, headers, verified);
    if (x.event === undefined) {
      throw new WebhookError('unknown_event', `Unknown event type "${x.type}"`, {
        details: { type: x.type },
      });
    }
    const id = eventId?.(headers, body, verified) ?? x.id ?? (await parts.contentId!(bytes));
    const { data } = await check(x.event, x.data, x.dataPointer, { id, type: x.event });
    return { id, type: x.event, timestamp: x.timestamp, data } as ParsedEvent<M>;
  };

  return {
    async verifyAndParse(input) {
      try {
        if (isRequest(input)) {
          const bytes = await readRequestBody(input, maxBodyBytes);
          return await parse(input.headers, bytes, input.url);
        }
        return await parse(input.headers, toBytes(input.body as RawBody), input.url);
      } catch (error) {
        // A scheme, schema or body reader that throws something else still surfaces as WebhookError.
        throw toWebhookError(error);
      }
    },
  };
}
