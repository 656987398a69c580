/**
 * `headerSelector(contract)`: the `header` selector (GitHub's `X-GitHub-Event`, with an optional body
 * field such as `action`). A receiver part (`headerSelector`), so a contract that names its events in
 * the body carries none of it.
 */
import type { Contract, EventMapBase, SelectorConfig } from '../contract.js';
import { WebhookError } from '../errors.js';
import { readHeader } from '../headers.js';
import type { HeadersInput } from '../signing/scheme.js';
import { getPath } from './body-path.js';

export type HeaderSelect = (
  headers: HeadersInput,
  data: unknown,
) => { readonly type: string; readonly event: string | undefined };

/**
 * For a contract whose selector is `header` and whose every event has a `match.header` (the
 * generator's contracts; the runtime's `createReceiver` checks a hand-written one, check-contract.ts).
 */
export function headerSelector<M extends EventMapBase>(contract: Contract<M>): HeaderSelect {
  const selector = contract.selector as Extract<SelectorConfig, { kind: 'header' }>;
  // Header value → (body value → event name), and the event of the header value alone.
  const byHeader = new Map<string, { headerOnly?: string; byBody: Map<string, string> }>();
  for (const [name, definition] of Object.entries(contract.events)) {
    const match = definition.match;
    const headerValue = match?.header as string;
    const slot = byHeader.get(headerValue) ?? { byBody: new Map<string, string>() };
    if (match?.body === undefined) slot.headerOnly = name;
    else slot.byBody.set(match.body, name);
    byHeader.set(headerValue, slot);
  }
  const name = selector.header.toLowerCase();
  return (headers, data) => {
    const headerValue = readHeader(headers, name);
    if (headerValue === undefined) {
      throw new WebhookError('missing_header', `Missing ${selector.header} header (the event type)`, {
        details: { header: name },
      });
    }
    const bodyValue = selector.bodyField === undefined ? undefined : getPath(data, selector.bodyField);
    const bodyText = typeof bodyValue === 'string' ? bodyValue : undefined;
    const slot = byHeader.get(headerValue);
    return {
      type: bodyText === undefined ? headerValue : `${headerValue}.${bodyText}`,
      event: (bodyText === undefined ? undefined : slot?.byBody.get(bodyText)) ?? slot?.headerOnly,
    };
  };
}
