/**
 * AsyncAPI 2.x → event drafts: every message of every channel's `publish` and `subscribe`
 * operation (`message` or `message.oneOf`). A message reached twice (both operations, or two
 * channels) is one event. Name: `x-gen-webhooks.event` > `name` > `messageId` > its key under
 * `components/messages` (or in a shared messages file) > `<channel>.<operationId or publish/subscribe>` (+ `.<index>` in a oneOf).
 * Direction (2.x names operations from the client's side): a `subscribe` message is one the
 * application sends, a `publish` message one it receives.
 */
import { child, isRecord, type Loc } from '../load/document-store.js';
import { parsePointer } from '../load/pointer.js';
import { messageEvent } from './asyncapi-message.js';
import { type EventDraft, optionalString, type ParseContext, warn } from './context.js';

export function parseAsyncApi2(ctx: ParseContext, root: Loc): EventDraft[] {
  const channels = child(root, 'channels');
  if (!isRecord(channels.value)) return [];
  const doc = root.value as Record<string, unknown>;
  const defaultContentType = optionalString(doc.defaultContentType);
  const drafts: EventDraft[] = [];
  for (const channelName of Object.keys(channels.value)) {
    const channel = ctx.store.deref(child(channels, channelName)).loc;
    if (!isRecord(channel.value)) continue;
    for (const action of ['publish', 'subscribe'] as const) {
      const operation = ctx.store.deref(child(channel, action)).loc;
      if (!isRecord(operation.value)) continue;
      const slot = child(operation, 'message');
      if (slot.value === undefined) {
        warn(ctx, operation, 'no_message', `${action} operation without a message; ignored`);
        continue;
      }
      const resolved = ctx.store.deref(slot).loc;
      const members: Loc[] = [];
      if (isRecord(resolved.value) && Array.isArray(resolved.value.oneOf)) {
        const oneOf = child(resolved, 'oneOf');
        for (let i = 0; i < resolved.value.oneOf.length; i++) members.push(child(oneOf, i));
      } else {
        members.push(slot);
      }
      const operationId = optionalString(operation.value.operationId) ?? action;
      members.forEach((member, index) => {
        const message = ctx.store.deref(member).loc;
        if (!isRecord(message.value)) {
          warn(ctx, member, 'invalid_message', 'the message is not an object; ignored');
          return;
        }
        const key = componentKey(message, ctx.store.root.id);
        const base = key ?? `${channelName}.${operationId}`;
        const fallbackName = members.length > 1 && key === undefined ? `${base}.${index}` : base;
        const draft = messageEvent(ctx, {
          message,
          fallbackName,
          version: 2,
          direction: action === 'subscribe' ? 'send' : 'receive',
          ...(members.length === 1 ? { operation } : {}),
          ...(defaultContentType !== undefined ? { defaultContentType } : {}),
        });
        if (draft) drafts.push(draft);
      });
    }
  }
  return drafts;
}

/** `/components/messages/<key>`, or a top-level `/<key>` of a shared messages file → key. */
function componentKey(message: Loc, rootId: string): string | undefined {
  const tokens = parsePointer(message.pointer) ?? [];
  if (tokens.length === 3 && tokens[0] === 'components' && tokens[1] === 'messages') return tokens[2];
  return tokens.length === 1 && message.doc.id !== rootId ? tokens[0] : undefined;
}
