import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebhookError } from './errors.js';
import {
  checkTimestamp,
  checkTimestampMs,
  checkTolerance,
  parseUnixSeconds,
  toleranceWindow,
} from './timestamp.js';

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

describe('the tolerance split', () => {
  const now = () => 1_000_000 * 1000;
  it('bounds each side by its own number', () => {
    const tolerance = { past: 10, future: 2 };
    expect(codeOf(() => checkTimestamp(1_000_000 - 10, { now, tolerance }, 'h'))).toBe('ok');
    expect(codeOf(() => checkTimestamp(1_000_000 - 11, { now, tolerance }, 'h'))).toBe('timestamp_too_old');
    expect(codeOf(() => checkTimestamp(1_000_000 + 2, { now, tolerance }, 'h'))).toBe('ok');
    expect(codeOf(() => checkTimestamp(1_000_000 + 3, { now, tolerance }, 'h'))).toBe('timestamp_too_new');
  });

  it('reports the side that failed in the error details', () => {
    let error: unknown;
    try {
      checkTimestamp(1_000_000 + 3, { now, tolerance: { past: 10, future: 2 } }, 'X-Ts');
    } catch (e) {
      error = e;
    }
    expect((error as WebhookError).details).toMatchObject({ header: 'x-ts', tolerance: 2 });
  });

  it('accepts Infinity on a side, as stripe-node and Bolt accept any future timestamp', () => {
    const tolerance = { past: 300, future: Number.POSITIVE_INFINITY };
    expect(codeOf(() => checkTimestamp(1_000_000 + 10 ** 9, { now, tolerance }, 'h'))).toBe('ok');
    expect(codeOf(() => checkTimestamp(1_000_000 - 301, { now, tolerance }, 'h'))).toBe('timestamp_too_old');
  });

  it('is the same as the number form when both sides agree', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.integer({ min: -2000, max: 2000 }), (seconds, offset) => {
        const at = 1_000_000 + offset;
        expect(
          codeOf(() => checkTimestamp(at, { now, tolerance: { past: seconds, future: seconds } }, 'h')),
        ).toBe(codeOf(() => checkTimestamp(at, { now, tolerance: seconds }, 'h')));
      }),
    );
  });

  it('refuses malformed windows at construction', () => {
    expect(toleranceWindow(undefined)).toEqual({ past: 300, future: 300 });
    expect(toleranceWindow(7)).toEqual({ past: 7, future: 7 });
    expect(checkTolerance({ past: 1, future: 2 })).toEqual({ past: 1, future: 2 });
    for (const bad of [
      { past: -1, future: 1 },
      { past: 1, future: Number.NaN },
      { past: 1 },
      { future: 1 },
      { past: 1, future: 1, extra: 1 },
      { past: '1', future: 1 },
      [],
      '300',
    ]) {
      expect(
        codeOf(() => checkTolerance(bad as never)),
        JSON.stringify(bad),
      ).toBe('invalid_config');
    }
  });
});

describe('checkTimestampMs', () => {
  const now = () => 1_000_000_123;
  it('compares milliseconds against each side of the window', () => {
    const tolerance = { past: 60, future: 1 };
    expect(codeOf(() => checkTimestampMs(1_000_000_123 - 60_000, { now, tolerance }, 'ts'))).toBe('ok');
    expect(codeOf(() => checkTimestampMs(1_000_000_123 - 60_001, { now, tolerance }, 'ts'))).toBe(
      'timestamp_too_old',
    );
    expect(codeOf(() => checkTimestampMs(1_000_000_123 + 1_000, { now, tolerance }, 'ts'))).toBe('ok');
    expect(codeOf(() => checkTimestampMs(1_000_000_123 + 1_001, { now, tolerance }, 'ts'))).toBe(
      'timestamp_too_new',
    );
    expect(codeOf(() => checkTimestampMs(0, { now, tolerance: -1 }, 'ts'))).toBe('invalid_config');
  });
});
