/**
 * `createParser` of the Node entry: `verifyAndParse` with node:crypto's schemes (synchronous
 * verification, as the Node receiver).
 */
import type { Contract, EventMapBase } from '../contract.js';
import { createSignatureScheme } from '../signing/resolve.js';
import { createParser as createWebParser, type Parser, type ParserOptions } from './verify-and-parse.js';

export function createParser<M extends EventMapBase>(
  contract: Contract<M>,
  options: ParserOptions,
): Parser<M> {
  return createWebParser(contract, options, createSignatureScheme);
}
