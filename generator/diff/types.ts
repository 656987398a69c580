/** Shapes of a contract diff (`gen-webhooks diff`, `diffContracts`). Plain data: `--json` prints them as is. */

/**
 * Who a change breaks: the webhook receivers' code (it reads events, and in a two-way AsyncAPI contract
 * writes the client messages) or the application's code that sends the events (and reads the client
 * messages).
 */
export type Audience = 'receivers' | 'senders';

/** Every rule the engine applies; `rules.ts` says whom each one breaks. */
export type DiffRule =
  | 'event-removed'
  | 'event-added'
  | 'event-deprecated'
  | 'event-undeprecated'
  | 'event-match-changed'
  | 'field-removed'
  | 'field-added'
  | 'required-field-added'
  | 'field-made-required'
  | 'field-made-optional'
  | 'nullable-added'
  | 'nullable-removed'
  | 'type-widened'
  | 'type-narrowed'
  | 'type-changed'
  | 'enum-value-added'
  | 'enum-value-removed'
  | 'union-member-added'
  | 'union-member-removed'
  | 'constraint-relaxed'
  | 'constraint-tightened'
  | 'constraint-changed'
  | 'additional-properties-closed'
  | 'additional-properties-opened'
  | 'signature-changed'
  | 'envelope-changed'
  | 'selector-changed'
  | 'retry-changed'
  | 'metadata-changed'
  | 'docs-changed';

/** Where a change is: the whole contract, one event, its payload schema or its headers schema. */
export type DiffLocation = 'contract' | 'event' | 'payload' | 'headers';

export interface DiffChange {
  readonly rule: DiffRule;
  /** Whom it breaks: `[]` is safe (informational). */
  readonly breaks: readonly Audience[];
  /** The event (or client message) it belongs to; absent for contract-level changes. */
  readonly event?: string;
  /**
   * `client`: the change is to a message the application receives from its clients (`ClientMessages`
   * of a two-way AsyncAPI contract), not to a webhook event; `breaks` already accounts for the
   * reversed flow.
   */
  readonly direction?: 'client';
  readonly location: DiffLocation;
  /**
   * JSON pointer: inside the payload (or headers) schema for schema changes, e.g.
   * `/properties/pet/properties/status`; inside the contract config for contract changes, e.g.
   * `/signature`; `''` for a whole event. Pointers describe the effective schema: `$ref`s are
   * followed and `allOf` members are merged, so a property is `/properties/x` wherever it was declared.
   */
  readonly pointer: string;
  /** The keyword a constraint/doc change is about (`maxLength`, `format`, `description`…). */
  readonly keyword?: string;
  readonly message: string;
  readonly old?: unknown;
  readonly new?: unknown;
}

export interface DiffSummary {
  readonly old: { readonly title: string; readonly version: string; readonly events: number };
  readonly new: { readonly title: string; readonly version: string; readonly events: number };
  /** Number of changes that break receivers / senders (a change breaking both counts in each). */
  readonly receivers: number;
  readonly senders: number;
  readonly safe: number;
  /** Distinct breaking changes (a change breaking both counts once). */
  readonly breaking: number;
  readonly eventsAdded: number;
  readonly eventsRemoved: number;
  /** Events present in both versions with at least one change. */
  readonly eventsChanged: number;
  /** The same counts for client messages (always 0 for one-direction contracts). */
  readonly clientMessagesAdded: number;
  readonly clientMessagesRemoved: number;
  readonly clientMessagesChanged: number;
}

export interface DiffReport {
  readonly breaking: { readonly receivers: readonly DiffChange[]; readonly senders: readonly DiffChange[] };
  readonly safe: readonly DiffChange[];
  readonly summary: DiffSummary;
}
