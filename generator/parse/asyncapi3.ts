/**
 * AsyncAPI 3.x → event drafts: for every operation (`action: send | receive`), the messages it lists
 * (or, when it lists none, every message of its channel). Each listed message must be a `$ref` into
 * the operation's own channel's `messages` (the rule the official parser enforces); anything else is
 * `invalid_document`. A message reached twice is one event. Name: `x-gen-webhooks.event` (message,
 * then operation) > message `name` > the message's key in the channel. A document without
 * `operations` falls back to every channel message (info). Each use carries its operation's action
 * as the message's direction (parse/index.ts splits a document that has both).
 */

import { GeneratorError } from '../errors.js';
import { child, isRecord, type Loc } from '../load/document-store.js';
import { appendPointer, parsePointer } from '../load/pointer.js';
import { messageEvent } from './asyncapi-message.js';
import { type EventDraft, info, optionalString, type ParseContext, warn } from './context.js';

export function parseAsyncApi3(ctx: ParseContext, root: Loc): EventDraft[] {
  const doc = root.value as Record<string, unknown>;
  const defaultContentType = optionalString(doc.defaultContentType);
  const drafts: EventDraft[] = [];
  const use = (message: Loc, key: string, operation: Loc | undefined, direction?: 'send' | 'receive') => {
    const resolved = ctx.store.deref(message).loc;
    if (!isRecord(resolved.value)) {
      warn(ctx, message, 'invalid_message', 'the message is not an object; ignored');
      return;
    }
    const draft = messageEvent(ctx, {
      message: resolved,
      fallbackName: key,
      version: 3,
      ...(operation ? { operation } : {}),
      ...(direction ? { direction } : {}),
      ...(defaultContentType !== undefined ? { defaultContentType } : {}),
    });
    if (draft) drafts.push(draft);
  };
  const operations = child(root, 'operations');
  if (!isRecord(operations.value)) {
    const channels = child(root, 'channels');
    if (!isRecord(channels.value)) return [];
    info(ctx, root, 'no_operations', 'no `operations`: every channel message is an event');
    for (const channelKey of Object.keys(channels.value)) {
      const channel = ctx.store.deref(child(channels, channelKey)).loc;
      const messages = child(channel, 'messages');
      if (!isRecord(messages.value)) continue;
      for (const key of Object.keys(messages.value)) use(child(messages, key), key, undefined);
    }
    return drafts;
  }
  for (const operationKey of Object.keys(operations.value)) {
    const operation = ctx.store.deref(child(operations, operationKey)).loc;
    if (!isRecord(operation.value)) continue;
    const action = operation.value.action;
    if (action !== 'send' && action !== 'receive') {
      throw new GeneratorError('invalid_document', `operation "${operationKey}" has no valid action`, {
        file: operation.doc.display,
        pointer: appendPointer(operation.pointer, 'action'),
        expected: '"send" or "receive"',
      });
    }
    const channelSlot = child(operation, 'channel');
    if (channelSlot.value === undefined) {
      throw new GeneratorError('invalid_document', `operation "${operationKey}" has no channel`, {
        file: operation.doc.display,
        pointer: operation.pointer,
        expected: 'channel: { $ref: "#/channels/<name>" }',
      });
    }
    const channel = ctx.store.deref(channelSlot).loc;
    const channelMessages = child(channel, 'messages');
    const listed = child(operation, 'messages');
    if (!Array.isArray(listed.value)) {
      if (!isRecord(channelMessages.value)) continue;
      const keys = Object.keys(channelMessages.value);
      for (const key of keys)
        use(child(channelMessages, key), key, keys.length === 1 ? operation : undefined, action);
      continue;
    }
    for (let i = 0; i < listed.value.length; i++) {
      const slot = child(listed, i);
      const key = channelMessageKey(ctx, slot, channelMessages);
      if (key === undefined) {
        throw new GeneratorError(
          'invalid_document',
          `operation "${operationKey}" lists a message that is not one of its channel's messages`,
          {
            file: slot.doc.display,
            pointer: slot.pointer,
            expected: `a $ref to ${channelMessages.doc.display}#${channelMessages.pointer}/<message>`,
          },
        );
      }
      use(child(channelMessages, key), key, listed.value.length === 1 ? operation : undefined, action);
    }
  }
  return drafts;
}

/** The key in the channel's `messages` that the operation's message `$ref` points at, if any. */
function channelMessageKey(ctx: ParseContext, slot: Loc, channelMessages: Loc): string | undefined {
  if (!isRecord(slot.value) || typeof slot.value.$ref !== 'string' || !isRecord(channelMessages.value)) {
    return undefined;
  }
  const target = ctx.store.resolve(slot.value.$ref, slot);
  if (target.doc.id !== channelMessages.doc.id) return undefined;
  const prefix = `${channelMessages.pointer}/`;
  if (!target.pointer.startsWith(prefix)) return undefined;
  const rest = parsePointer(target.pointer.slice(channelMessages.pointer.length)) ?? [];
  const key = rest[0];
  return rest.length === 1 && key !== undefined && key in channelMessages.value ? key : undefined;
}
