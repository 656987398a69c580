/**
 * An `hmac` contract's id header that its `signedContent` leaves out: nothing authenticates it, so
 * the receiver dedupes on the signed envelope id and refuses a delivery whose header disagrees with
 * it (a captured delivery must not replay under fresh ids). A receiver part (`unsignedId`): the hmac
 * parts and the runtime's `createReceiver` carry it, other receivers none of it.
 */
import type { Contract, EventMapBase } from '../contract.js';
import { WebhookError } from '../errors.js';
import { readHeader } from '../headers.js';
import { escapePointer } from '../json-pointer.js';
import { unsignedIdHeader } from '../signing/hmac-scheme-core.js';
import type { HeadersInput } from '../signing/scheme.js';

/** Throws `invalid_signature` when the unsigned id header is present and is not `envelopeId`. */
export type UnsignedIdCheck = (headers: HeadersInput, envelopeId: string) => void;

/** The check of `contract`'s unsigned id header (`idField`: the envelope's id field), if it has one. */
export function unsignedIdCheck(
  contract: Contract<EventMapBase>,
  idField: string | undefined,
): UnsignedIdCheck | undefined {
  const header = unsignedIdHeader(contract.signature);
  if (header === undefined) return undefined;
  const name = header.toLowerCase();
  return (headers, envelopeId) => {
    const claimed = readHeader(headers, name);
    if (claimed !== undefined && claimed !== envelopeId) {
      throw new WebhookError(
        'invalid_signature',
        `${header} is not signed and disagrees with the envelope id`,
        {
          details: { header: name, pointer: `/${escapePointer(idField ?? 'id')}` },
        },
      );
    }
  };
}
