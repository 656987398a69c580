/**
 * Validation per policy (`validation`, `validationByEvent`): the event's data and issues, or
 * `invalid_payload` (strict). Synchronous for sync schemes (zod), so the hot path pays no promise.
 * The default is `report`: a vendor's real traffic often breaks the vendor's own published schema,
 * and a 400 makes it retry, then disable the hook.
 */
import type { EventMapBase, StandardSchemaV1 } from '../contract.js';
import { WebhookError } from '../errors.js';
import type { ReceiverLogger } from './hooks.js';
import type { Checked, CommonReceiverOptions, DeliverySteps, ValidationPolicy } from './types.js';
import { type Validated, validate } from './validate.js';
import { validationLog } from './validation-log.js';

export type { Checked };

export type Check = DeliverySteps['check'];

/** The receiver's default; the parser and the sender default to `strict` (see docs/evolution.md). */
export const DEFAULT_VALIDATION: ValidationPolicy = 'report';

type PolicyOptions = Pick<
  CommonReceiverOptions<EventMapBase>,
  'validation' | 'validationByEvent' | 'onValidationIssue'
>;

export function policyCheck(
  o: PolicyOptions,
  events: { readonly [name: string]: { readonly schema: StandardSchemaV1 } },
  /** Where `report` issues go when no `onValidationIssue` is given (rate-limited per type). */
  log?: { readonly logger: ReceiverLogger; readonly now?: () => number },
): Check {
  const logIssues = o.onValidationIssue === undefined && log ? validationLog(log.logger, log.now) : undefined;
  const checked = (
    result: Validated,
    policy: ValidationPolicy,
    name: string,
    data: unknown,
    pointer: string,
    ids: { id: string; type: string },
  ): Checked => {
    if (result.ok) return { data: result.value, issues: [] };
    // Under strict the 400 (and onError) says it; under report nothing else would.
    if (logIssues !== undefined && policy === 'report') logIssues(ids, result.issues);
    try {
      o.onValidationIssue?.({ ...ids, data }, result.issues);
    } catch {
      // A failing hook must not change the answer.
    }
    if (policy === 'strict') {
      throw new WebhookError('invalid_payload', `The "${name}" payload does not match the contract`, {
        details: { issues: result.issues, pointer },
      });
    }
    return { data, issues: result.issues };
  };

  return (name, data, pointer, ids) => {
    const byEvent = o.validationByEvent;
    const policy =
      (byEvent && Object.hasOwn(byEvent, name) ? byEvent[name] : undefined) ??
      o.validation ??
      DEFAULT_VALIDATION;
    const schema = events[name]?.schema;
    if (policy === 'off' || schema === undefined) return { data, issues: [] };
    const result = validate(schema, data, pointer);
    if (result instanceof Promise) return result.then((r) => checked(r, policy, name, data, pointer, ids));
    return checked(result, policy, name, data, pointer, ids);
  };
}
