/**
 * `gen-webhooks`: the generator API. `generate()` is what the CLI runs; `loadContracts()` gives the
 * neutral event model for tools that want it (diff, listen, send).
 */
export * from './errors.js';
export type * from './model.js';
