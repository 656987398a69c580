/** The error a newcomer meets first: no `store`. It must name the stores that exist and the opt-out. */
import { describe, expect, it } from 'vitest';
import { petstore, SECRET } from '../../test/receiver/fixtures.js';
import { WebhookError } from '../errors.js';
import * as stores from '../stores/index.js';
import { createReceiver } from './receiver-web.js';

function missingStoreError(): WebhookError {
  try {
    createReceiver(petstore, { secret: SECRET, handlers: {} } as never);
  } catch (error) {
    if (error instanceof WebhookError) return error;
    throw error;
  }
  throw new Error('createReceiver accepted options without a store');
}

describe('createReceiver without a store', () => {
  it('is invalid_config naming the option, every store factory and `dedupe: false`', () => {
    const error = missingStoreError();
    expect(error.code).toBe('invalid_config');
    expect(error.message).toContain('`store`');
    expect(error.message).toContain('`dedupe: false`');
    // The names come from the barrel, so a renamed or added factory shows up here.
    const factories = Object.keys(stores).filter((name) => /^[a-z]+Store$/.test(name));
    expect(factories.sort()).toEqual(['memoryStore', 'postgresStore', 'redisStore', 'sqliteStore']);
    for (const name of factories) expect(error.message).toContain(`${name}(`);
  });

  it('`dedupe: false` is the opt-out: no store, no error', () => {
    expect(() =>
      createReceiver(petstore, { secret: SECRET, dedupe: false, handlers: {} } as never),
    ).not.toThrow();
  });
});
