/**
 * The checks of a hand-written contract's delivery config, run by the runtime's `createReceiver` and
 * `createParser` (`invalid_config`): an envelope config that makes no sense (`envelopeFields`), an
 * `envelope-type` selector over an envelope without a type field, a `header` selector with an event
 * that has no `match.header`. A generated contract passed the
 * same checks in the generator (generator/parse/check-delivery.ts), so its receiver carries none;
 * the `hmac` signature config is checked by the scheme the runtime's receivers build
 * (`compileHmacConfig`), a generated Web receiver's trusts it too.
 */
import type { Contract, EventMapBase } from '../contract.js';
import { envelopeFields } from '../envelope.js';
import { WebhookError } from '../errors.js';
import { refuseUnsignedHmacToken } from './contract-handshakes.js';

export function checkContract(contract: Contract<EventMapBase>): void {
  // A parser answers no handshake, but a contract that declares an oracle is refused everywhere.
  refuseUnsignedHmacToken(contract.handshakes ?? []);
  if (contract.selector.kind === 'header') {
    for (const [name, definition] of Object.entries(contract.events)) {
      if (definition.match?.header === undefined) {
        throw new WebhookError(
          'invalid_config',
          `Event "${name}" needs match.header for the header selector`,
        );
      }
    }
  }
  if (contract.envelope.kind !== 'envelope') return;
  const names = envelopeFields(contract.envelope);
  if (contract.selector.kind === 'envelope-type' && names.absent.has('type')) {
    throw new WebhookError(
      'invalid_config',
      'The envelope-type selector needs an envelope type field (it is listed as absent)',
    );
  }
}
