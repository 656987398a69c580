/**
 * One delivery through the pipeline: size cap → unsigned handshakes → verify → parse → signed
 * handshakes → select the event → event id → unknown types → validate → queue (ack-fast) or run.
 * Never throws: a failure is answered by `fail`.
 */

import { bodyTooLarge, toBytes } from '../bytes.js';
import { WebhookError } from '../errors.js';
import type { HandshakeResponse } from '../presets/types.js';
import type { RawBody } from '../signing/scheme.js';
import type { AckFastRun } from './ack-fast-mode.js';
import type { ContractHandshakes } from './contract-handshakes.js';
import type { ContractRules } from './contract-rules.js';
import type { Dispatcher, Extracted } from './dispatch.js';
import { type AnyHandler, isThenable } from './handler-event.js';
import type { ReceiverLogger } from './hooks.js';
import { safeLog } from './observe.js';
import type { contentId } from './parts.js';
import type { Checked } from './policy.js';
import type { LooseOptions } from './receiver-options.js';
import { statusResult } from './respond.js';
import type { Ids } from './run-context.js';
import type { DeliverySteps, ReceiveObserver, ReceiveRequest, ReceiveResult } from './types.js';

/** A provider handshake's answer: sent as is, nothing dispatched or claimed. */
function handshakeResult(answer: HandshakeResponse): ReceiveResult {
  return { status: answer.status, headers: answer.headers, body: answer.body, outcome: 'processed' };
}

/**
 * Positional parts (not one object) so a minifier shortens every name. `idOf` is the parts'
 * `contentId`, present whenever the contract's deliveries may carry no id. `steps` are the receiver's
 * verify, check and run; each of `observers` (hooks, tracing) wraps them per request.
 */
export function receivePipeline(
  o: LooseOptions,
  { parseBody, eventId }: ContractRules,
  handshakes: ContractHandshakes | undefined,
  dispatch: Dispatcher,
  steps: DeliverySteps,
  observers: readonly ReceiveObserver[],
  handlerFor: (event: string | undefined) => AnyHandler | undefined,
  reportUnknown: (x: Extracted, context: Partial<Ids>) => void,
  queued: AckFastRun | undefined,
  fail: (error: unknown, context: Partial<Ids>) => ReceiveResult,
  maxBodyBytes: number,
  unknownEvent: NonNullable<LooseOptions['unknownEvent']>,
  logger: ReceiverLogger,
  idOf: typeof contentId | undefined,
): (request: ReceiveRequest) => Promise<ReceiveResult> {
  const receive = async (request: ReceiveRequest, s: DeliverySteps): Promise<ReceiveResult> => {
    const context: { id?: string; type?: string } = {};
    try {
      const bytes = toBytes(request.body as RawBody);
      if (bytes.byteLength > maxBodyBytes) {
        throw bodyTooLarge(maxBodyBytes);
      }
      const url = request.url;
      const asked = { method: request.method, url, headers: request.headers, body: bytes };
      // Unsigned handshakes (Meta GET, Graph validationToken, Okta GET, CloudEvents OPTIONS): answered
      // before verification and before dedupe; the preset or contract checks what the provider sends.
      if (handshakes?.before !== undefined) {
        const early = await handshakes.before(asked);
        if (early !== undefined) return handshakeResult(early);
      }
      const verifying = s.verify(
        url === undefined ? { headers: request.headers, body: bytes } : { ...asked, url },
      );
      const verified = isThenable(verifying) ? await verifying : verifying;
      const body = parseBody(bytes, request.headers);
      const answering = handshakes?.after(asked, body);
      const answer = isThenable(answering) ? await answering : answering;
      if (answer !== undefined) return handshakeResult(answer);
      const x = dispatch(body, request.headers, verified);
      const id = eventId?.(request.headers, body, verified) ?? x.id ?? (await idOf!(bytes));
      context.id = id;
      context.type = x.event ?? x.type;
      s.identified?.(id, context.type, x.event === undefined);
      if (x.event === undefined && unknownEvent === 'reject') {
        throw new WebhookError('unknown_event', `Unknown event type "${x.type}"`, {
          details: { type: x.type },
        });
      }
      const handler = handlerFor(x.event);
      if (handler === undefined) {
        // A verified delivery of a type the contract does not know never vanishes silently: it
        // reaches onError when one is set, a given logger, else the console once per type.
        if (x.event === undefined) {
          if (o.onError !== undefined || o.logger === undefined) reportUnknown(x, context);
          else
            safeLog(
              logger,
              'warn',
              { id, type: x.type },
              `Ignored a verified webhook of unknown type "${x.type}" (no onUnknown handler)`,
            );
        }
        return statusResult(200, 'ignored', 'ignored', context);
      }
      const event = x.event;
      const checking: Checked | Promise<Checked> =
        event === undefined
          ? { data: x.data, issues: [] }
          : s.check(event, x.data, x.dataPointer, { id, type: event });
      const validated = isThenable(checking) ? await checking : checking;
      if (queued !== undefined) return await queued.accept(x, id, request.headers, context, bytes);
      const parts = {
        id,
        type: x.event ?? x.type,
        timestamp: x.timestamp,
        data: validated.data,
        headers: request.headers,
        issues: validated.issues,
      };
      return await s.run(parts, handler);
    } catch (error) {
      return fail(error, context);
    }
  };
  if (observers.length === 0) return (request) => receive(request, steps);
  return async (request) => {
    let s = steps;
    for (const observer of observers) s = observer.start(request, s);
    const result = await receive(request, s);
    s.done?.(result);
    return result;
  };
}
