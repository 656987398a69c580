/**
 * The event catalog customers pick subscriptions from: every event of the contract with its summary,
 * and an example payload when the provider passes one (the generated module's `fixtures` are one per
 * event). Examples are also what "Send a test event" sends.
 */
import type { Contract, EventMapBase } from '../contract.js';

export interface CatalogEntry {
  readonly name: string;
  readonly summary?: string;
  readonly deprecated: boolean;
  readonly example?: unknown;
  /** The example, pretty-printed once. */
  readonly exampleJson?: string;
}

export type Catalog = ReadonlyMap<string, CatalogEntry>;

export function buildCatalog(
  contract: Pick<Contract<EventMapBase>, 'events'>,
  examples: { readonly [event: string]: unknown } = {},
  descriptions: { readonly [event: string]: string } = {},
): Catalog {
  const entries = Object.keys(contract.events)
    .sort()
    .map((name): CatalogEntry => {
      const event = contract.events[name];
      const summary = descriptions[name] ?? event?.summary;
      const has = Object.hasOwn(examples, name) && examples[name] !== undefined;
      return {
        name,
        ...(summary ? { summary } : {}),
        deprecated: event?.deprecated === true,
        ...(has ? { example: examples[name], exampleJson: JSON.stringify(examples[name], null, 2) } : {}),
      };
    });
  return new Map(entries.map((e) => [e.name, e]));
}

/** The catalog events an endpoint subscribed to (`*`: all of them). */
export function subscribed(catalog: Catalog, events: readonly string[]): CatalogEntry[] {
  const all = events.includes('*');
  return [...catalog.values()].filter((e) => all || events.includes(e.name));
}
