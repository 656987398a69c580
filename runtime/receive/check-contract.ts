/**
 * The checks of a hand-written contract's delivery config, run by the runtime's `createReceiver` and
 * `createParser` (`invalid_config`): an envelope config that makes no sense (`envelopeFields`), an
 * `envelope-type` selector over an envelope without a type field. A generated contract passed the
 * same checks in the generator (generator/parse/check-delivery.ts), so its receiver carries none;
 * the `hmac` signature config is checked by the scheme the runtime's receivers build
 * (`compileHmacConfig`), a generated Web receiver's trusts it too.
 */
import type { Contract, EventMapBase } from '../contract.js';
import { envelopeFields } from '../envelope.js';
import { WebhookError } from '../errors.js';

export function checkContract(contract: Contract<EventMapBase>): void {
  if (contract.envelope.kind !== 'envelope') return;
  const names = envelopeFields(contract.envelope);
  if (contract.selector.kind === 'envelope-type' && names.absent.has('type')) {
    throw new WebhookError(
      'invalid_config',
      'The envelope-type selector needs an envelope type field (it is listed as absent)',
    );
  }
}
