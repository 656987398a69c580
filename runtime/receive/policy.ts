/**
 * Validation per policy (`validation`, `validationByEvent`): the event's data and issues, or
 * `invalid_payload` (strict). Synchronous for sync schemes (zod), so the hot path pays no promise.
 */
import type { EventMapBase, StandardSchemaV1 } from '../contract.js';
import { WebhookError } from '../errors.js';
import type { Checked, CommonReceiverOptions, DeliverySteps, ValidationPolicy } from './types.js';
import { type Validated, validate } from './validate.js';

export type { Checked };

export type Check = DeliverySteps['check'];

type PolicyOptions = Pick<
  CommonReceiverOptions<EventMapBase>,
  'validation' | 'validationByEvent' | 'onValidationIssue'
>;

export function policyCheck(
  o: PolicyOptions,
  events: { readonly [name: string]: { readonly schema: StandardSchemaV1 } },
): Check {
  const checked = (
    result: Validated,
    policy: ValidationPolicy,
    name: string,
    data: unknown,
    pointer: string,
    ids: { id: string; type: string },
  ): Checked => {
    if (result.ok) return { data: result.value, issues: [] };
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
      (byEvent && Object.hasOwn(byEvent, name) ? byEvent[name] : undefined) ?? o.validation ?? 'strict';
    const schema = events[name]?.schema;
    if (policy === 'off' || schema === undefined) return { data, issues: [] };
    const result = validate(schema, data, pointer);
    if (result instanceof Promise) return result.then((r) => checked(r, policy, name, data, pointer, ids));
    return checked(result, policy, name, data, pointer, ids);
  };
}
