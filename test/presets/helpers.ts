/** Test helpers for the provider presets. */
import { expect } from 'vitest';
import { WebhookError, type WebhookErrorCode } from '../../runtime/errors.js';

/** Runs `fn` (sync or async) and returns the `WebhookError` it throws, failing on anything else. */
export async function catchWebhookError(fn: () => unknown): Promise<WebhookError> {
  let thrown: unknown;
  try {
    await fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, 'expected a WebhookError').toBeInstanceOf(WebhookError);
  return thrown as WebhookError;
}

export async function expectCode(fn: () => unknown, code: WebhookErrorCode, status?: number) {
  const error = await catchWebhookError(fn);
  expect(error.code, error.message).toBe(code);
  if (status !== undefined) expect(error.status).toBe(status);
  return error;
}

/** A fixed clock: Unix seconds `seconds`, as the `now()` option expects (milliseconds). */
export function clockAt(seconds: number): () => number {
  return () => seconds * 1000;
}

/** Flips one bit of a UTF-8 text body (the result is still a string the verifier can take). */
export function tamper(body: string): string {
  const first = body.charCodeAt(0);
  return String.fromCharCode(first === 0x41 ? 0x42 : 0x41) + body.slice(1);
}
