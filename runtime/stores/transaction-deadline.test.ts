import { describe, expect, it } from 'vitest';
import { WebhookError } from '../errors.js';
import { transactionWithDeadline } from './transaction-deadline.js';
import type { TransactionResult } from './types.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A store transaction: `beginMs` before the handler, `commitMs` after it. */
function fakeTransaction(beginMs: number, commitMs: number) {
  return async <T>(inner: (tx: string) => Promise<T>): Promise<TransactionResult<T>> => {
    await sleep(beginMs);
    const value = await inner('tx');
    await sleep(commitMs);
    return { status: 'committed', value };
  };
}

async function failure(promise: Promise<unknown>): Promise<WebhookError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookError);
  return error as WebhookError;
}

describe('transactionWithDeadline', () => {
  it('does not count the handler: a handler slower than the deadline commits', async () => {
    const result = await transactionWithDeadline(30, fakeTransaction(5, 5), async (tx) => {
      await sleep(80);
      return `${tx}:done`;
    });
    expect(result).toEqual({ status: 'committed', value: 'tx:done' });
  });

  it('a store that does not reach the handler in time: store_error, and the handler never runs', async () => {
    let ran = false;
    const begin = fakeTransaction(80, 0);
    const error = await failure(transactionWithDeadline(30, begin, () => (ran = true)));
    expect(error.code).toBe('store_error');
    expect(error.details).toMatchObject({ operation: 'transaction', timeoutMs: 30 });
    await sleep(80);
    expect(ran).toBe(false);
  });

  it('a commit that does not answer in time: store_error naming the commit', async () => {
    const error = await failure(transactionWithDeadline(30, fakeTransaction(0, 80), () => 1));
    expect(error.details).toMatchObject({ operation: 'commit', timeoutMs: 30 });
  });

  it('without a deadline (0, absent, Infinity) waits for the store', async () => {
    for (const ms of [0, undefined, Number.POSITIVE_INFINITY]) {
      expect(await transactionWithDeadline(ms, fakeTransaction(40, 0), () => 2)).toEqual({
        status: 'committed',
        value: 2,
      });
    }
  });

  it("passes the store's own failure through", async () => {
    const boom = new Error('connection refused');
    const begin = async (): Promise<TransactionResult<number>> => {
      throw boom;
    };
    await expect(transactionWithDeadline(30, begin, () => 1)).rejects.toBe(boom);
  });
});
