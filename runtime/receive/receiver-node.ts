/**
 * `createReceiver` and `createParser` of the Node entry: the receive pipeline with every part on
 * node:crypto (synchronous verification: the fast path `bench/verify.bench.ts` measures), failed
 * completions retried in the background.
 * Generated receivers pass their contract's parts alone (`parts-node.ts`); a contract given here is
 * checked first (`check-contract.ts`: a generated one was, in the generator).
 */
import { nodeHandler } from '../adapters/node-http.js';
import type { Contract, EventMapBase } from '../contract.js';
import { getDescriptor } from '../presets/catalog.js';
import { createSignatureScheme } from '../signing/resolve.js';
import { missingVerificationKey } from '../signing/verification-key.js';
import { ackFastQueue } from './ack-fast-mode.js';
import { checkContract } from './check-contract.js';
import { backgroundCompletions } from './completion-background.js';
import { brokerConsumers } from './consume-broker.js';
import { contractHandshakes } from './contract-handshakes.js';
import { anyRules } from './contract-rules.js';
import { createReceiverWith } from './create-receiver.js';
import { decodeBody } from './decode-body.js';
import { checkedEnvelopeReader } from './envelope-reader.js';
import { contentId, type ReceiverParts, verifyingSchemes } from './parts.js';
import { headerSelector } from './select-header.js';
import { schemaSelector } from './select-schema.js';
import type { HandlerTx, Receiver, ReceiverOptions } from './types.js';
import { unsignedIdCheck } from './unsigned-id.js';
import { verificationAnswer } from './verification-event.js';
import { createParserWith, type Parser, type ParserOptions } from './verify-and-parse.js';

const allParts: ReceiverParts = {
  scheme: verifyingSchemes(createSignatureScheme),
  rules: anyRules(getDescriptor),
  decodeBody,
  envelope: checkedEnvelopeReader,
  headerSelector,
  schemaSelector,
  verification: verificationAnswer,
  missingKey: missingVerificationKey,
  unsignedId: unsignedIdCheck,
  contentId,
  handshakes: contractHandshakes,
  ackFast: /* @__PURE__ */ ackFastQueue(),
  node: nodeHandler,
  completions: backgroundCompletions,
  consumers: brokerConsumers,
};

export function createReceiver<M extends EventMapBase, Tx = undefined, T extends boolean = false>(
  contract: Contract<M>,
  options: ReceiverOptions<M, Tx, T>,
): Receiver<M, HandlerTx<Tx, T>> {
  checkContract(contract);
  return createReceiverWith(contract, options, allParts);
}

export function createParser<M extends EventMapBase>(
  contract: Contract<M>,
  options: ParserOptions,
): Parser<M> {
  checkContract(contract);
  return createParserWith(contract, options, allParts);
}
