/**
 * `createSender` of the Web entry, with the Node entry's type (so a generated module that re-exports
 * its sender still loads on Workers, Deno and browsers): sending needs Node (node:http/https, and
 * node:dns for the SSRF guard), so calling it is a clear `invalid_config`.
 */
import type { Contract, EventMapBase } from '../contract.js';
import { WebhookError } from '../errors.js';
import { checkKnownOptions } from '../known-options.js';
import type { Sender, SenderOptions } from './sender.js';
import { SENDER_KEYS } from './sender-keys.js';

export function createSender<M extends EventMapBase>(
  contract: Contract<M>,
  options?: SenderOptions,
): Sender<M> {
  // A misspelt or renamed option is named first, as on Node.
  checkKnownOptions('createSender', options, SENDER_KEYS);
  throw new WebhookError(
    'invalid_config',
    `createSender("${contract.name}") needs Node (node:http, node:https and node:dns for the SSRF guard); ` +
      'this build of @gen-webhooks/runtime receives only. Send from a Node process.',
  );
}
