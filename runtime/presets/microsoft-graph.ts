/**
 * Microsoft Graph change notifications (https://learn.microsoft.com/en-us/graph/change-notifications-delivery-webhooks).
 * Graph signs nothing: each notification in `value[]` carries the `clientState` given when the
 * subscription was created, and that is the `secret` (checked on every notification, constant time).
 * Subscribing (and each lifecycle URL) is validated by an unsigned POST `?validationToken=…`, answered
 * by `preflight` with the decoded token as text/plain (Graph waits 10 seconds), when it is 1–1024
 * printable ASCII characters (the contract handshakes' check; anything else is a 400). Lifecycle notifications
 * (`reauthorizationRequired`, `subscriptionRemoved`, `missed`) go to `preset.onLifecycle` and are
 * answered 202; change notifications are dispatched as `created`/`updated`/`deleted` (one per
 * delivery) or `batch`.
 */
import { WebhookError } from '../errors.js';
import { CHALLENGE } from '../receive/verification-event.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { microsoftGraphWindow } from '../stores/retry-windows.js';
import { checkPresetOptions } from './preset-keys.js';
import { parseJson } from './support.js';
import type { PresetSchemeOptions, ProviderPreset } from './types.js';
import { equalText, textSecrets } from './web-crypto.js';
import {
  batchType,
  bodyKey,
  emptyResponse,
  guardAsync,
  guardPreflight,
  hookFailed,
  isRecord,
  queryParam,
  textResponse,
} from './web-support.js';

function notifications(body: unknown): readonly unknown[] | undefined {
  const value = isRecord(body) ? body['value'] : undefined;
  return Array.isArray(value) && value.length > 0 ? value : undefined;
}

const isLifecycle = (item: unknown): boolean => isRecord(item) && typeof item['lifecycleEvent'] === 'string';

export function microsoftGraphScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('microsoft-graph', options);
  const secrets = textSecrets(options.secret).map((bytes) => new TextDecoder().decode(bytes));
  return guardAsync({
    name: 'microsoft-graph',
    sign() {
      // Nothing to add: the clientState travels in the body (`value[].clientState`).
      return {};
    },
    async verify(input) {
      const items = notifications(parseJson(input.body));
      if (items === undefined) {
        throw new WebhookError('invalid_body', 'A Graph notification body has a non-empty value array', {
          details: { pointer: '/value' },
        });
      }
      for (const [index, item] of items.entries()) {
        const state = isRecord(item) ? item['clientState'] : undefined;
        let matched = false;
        if (typeof state === 'string')
          for (const secret of secrets) if (equalText(state, secret)) matched = true;
        if (!matched) {
          throw new WebhookError('invalid_signature', 'clientState does not match the subscription secret', {
            details: { pointer: `/value/${index}/clientState` },
          });
        }
      }
      return { id: await bodyKey('microsoft-graph', input.body) };
    },
  });
}

export const microsoftGraph: ProviderPreset<'microsoft-graph'> = {
  name: 'microsoft-graph',
  scheme: microsoftGraphScheme,
  signature: { kind: 'preset', preset: 'microsoft-graph' },
  // `{ value: [ { subscriptionId, clientState, changeType, resource, resourceData, tenantId, … } ] }`;
  // `parseBody` adds `type` (see batchType).
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'type' },
  match: (event) => ({ body: event }),
  parseBody(body) {
    const parsed = parseJson(body);
    const items = notifications(parsed) ?? [];
    return {
      ...(isRecord(parsed) ? parsed : {}),
      type: batchType(items, (item) => (isRecord(item) ? item['changeType'] : undefined)),
    };
  },
  eventId: (_headers, _body, verified) => verified?.id,
  eventType: (_headers, body) =>
    isRecord(body) && typeof body['type'] === 'string' ? body['type'] : undefined,
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: microsoftGraphWindow,
  declared: {
    idSigned: false,
    timestampSigned: false,
    handshakes: ['validationToken', 'lifecycle'],
    residualRisk:
      'Nothing is signed: whoever holds the clientState (it travels in every body) can forge any notification, at any time.',
  },
  // Graph wants an answer within 3 seconds; slow answers are throttled and then dropped.
  defaultMode: 'ack-fast',
  async handshake(_headers, body, options) {
    const items = notifications(body);
    if (items === undefined || !items.every(isLifecycle)) return undefined;
    try {
      await options?.onLifecycle?.(items);
    } catch (cause) {
      throw hookFailed('onLifecycle', cause);
    }
    return emptyResponse(202);
  },
  preflight: guardPreflight((request) => {
    const token = queryParam(request.url, 'validationToken');
    if (token === undefined) return undefined;
    if (request.method !== undefined && request.method.toUpperCase() !== 'POST') return undefined;
    // Anyone can send this unsigned request: echo only what a contract's echo handshake would
    // (short printable text, the shared CHALLENGE check), never megabytes or markup of theirs.
    if (!CHALLENGE.test(token)) return emptyResponse(400);
    // URLSearchParams already decoded it; Graph wants the token back as is.
    return textResponse(200, token);
  }),
};
