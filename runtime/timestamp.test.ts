import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebhookError } from './errors.js';
import { checkTimestamp, checkTolerance, parseUnixSeconds } from './timestamp.js';

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookError) return error.code;
    throw error;
  }
  return 'ok';
}

describe('parseUnixSeconds', () => {
  it('parses canonical digit strings', () => {
    expect(parseUnixSeconds('0', 'X-Ts')).toBe(0);
    expect(parseUnixSeconds('1700000000', 'X-Ts')).toBe(1700000000);
    expect(parseUnixSeconds('999999999999999', 'X-Ts')).toBe(999999999999999);
    fc.assert(
      fc.property(fc.nat(), (n) => {
        expect(parseUnixSeconds(String(n), 'X-Ts')).toBe(n);
      }),
    );
  });

  it('rejects everything else as malformed_header, naming the header', () => {
    for (const text of [
      '1700000000abc',
      '1e9',
      ' 17',
      '17 ',
      '-1',
      '+1',
      '1.0',
      '0x1',
      '01',
      '',
      '٣',
      '1000000000000000',
    ]) {
      let error: unknown;
      try {
        parseUnixSeconds(text, 'Webhook-Timestamp');
      } catch (e) {
        error = e;
      }
      expect(error, text).toBeInstanceOf(WebhookError);
      expect((error as WebhookError).code).toBe('malformed_header');
      expect((error as WebhookError).details.header).toBe('webhook-timestamp');
    }
    expect(codeOf(() => parseUnixSeconds(undefined, 'X-Ts'))).toBe('missing_header');
    fc.assert(
      fc.property(fc.string(), (text) => {
        const code = codeOf(() => parseUnixSeconds(text, 'X-Ts'));
        expect(code === 'ok' ? /^(0|[1-9]\d{0,14})$/.test(text) : code === 'malformed_header').toBe(true);
      }),
    );
  });
});

describe('checkTimestamp', () => {
  const now = () => 1_000_000 * 1000;
  it('accepts the window boundaries inclusively, both directions', () => {
    expect(codeOf(() => checkTimestamp(1_000_000 - 300, { now }, 'h'))).toBe('ok');
    expect(codeOf(() => checkTimestamp(1_000_000 + 300, { now }, 'h'))).toBe('ok');
    expect(codeOf(() => checkTimestamp(1_000_000 - 301, { now }, 'h'))).toBe('timestamp_too_old');
    expect(codeOf(() => checkTimestamp(1_000_000 + 301, { now }, 'h'))).toBe('timestamp_too_new');
    expect(codeOf(() => checkTimestamp(1_000_000 - 5, { now, tolerance: 5 }, 'h'))).toBe('ok');
    expect(codeOf(() => checkTimestamp(1_000_000 - 6, { now, tolerance: 5 }, 'h'))).toBe('timestamp_too_old');
  });

  it('validates its configuration', () => {
    expect(checkTolerance(undefined)).toBe(300);
    expect(codeOf(() => checkTolerance(-1))).toBe('invalid_config');
    expect(codeOf(() => checkTolerance(Number.POSITIVE_INFINITY))).toBe('invalid_config');
    expect(codeOf(() => checkTimestamp(0, { now: () => Number.NaN }, 'h'))).toBe('invalid_config');
  });
});
