import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyJitter,
  attemptDelays,
  nextDelay,
  PETSTORE_SCHEDULE,
  parseRetryAfter,
  STANDARD_WEBHOOKS_SCHEDULE,
  SVIX_SCHEDULE,
  totalAttempts,
} from './backoff.js';
import type { BackoffConfig } from './contract.js';
import { WebhookError } from './errors.js';

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookError) return error.code;
    throw error;
  }
  return 'ok';
}

/** The whole schedule as nextDelay reports it: delays before attempt 2, 3, … until null. */
function retries(config: BackoffConfig): number[] {
  const out: number[] = [];
  for (let attempt = 1; ; attempt++) {
    const delay = nextDelay(config, attempt, { rng: () => 0.5 });
    if (delay === null) return out;
    out.push(delay);
  }
}

describe('presets', () => {
  it('Standard Webhooks: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(attemptDelays(STANDARD_WEBHOOKS_SCHEDULE)).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(retries(STANDARD_WEBHOOKS_SCHEDULE)).toEqual(
      [5, 300, 1800, 7200, 18000, 36000, 36000].map((s) => s * 1000),
    );
    expect(totalAttempts(STANDARD_WEBHOOKS_SCHEDULE)).toBe(8);
  });

  it('Svix: [0,5,300,1800,7200,18000,36000,36000] s', () => {
    expect(attemptDelays(SVIX_SCHEDULE)).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
  });

  it('Petstore: maxAttempts 11 is the first attempt and 10 retries, 1 s doubling to 512 s', () => {
    expect(retries(PETSTORE_SCHEDULE)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512].map((s) => s * 1000));
    expect(totalAttempts(PETSTORE_SCHEDULE)).toBe(11);
  });
});

describe('exponential', () => {
  it('caps at maxDelay and makes maxAttempts attempts in all, the first included', () => {
    const config: BackoffConfig = {
      kind: 'exponential',
      initialDelay: 2,
      factor: 3,
      maxDelay: 20,
      maxAttempts: 5,
    };
    expect(totalAttempts(config)).toBe(5);
    expect(attemptDelays(config)).toEqual([0, 2, 6, 18, 20]);
    expect(retries(config)).toEqual([2, 6, 18, 20].map((s) => s * 1000));
    expect(nextDelay(config, 4)).toBe(20_000);
    expect(nextDelay(config, 5)).toBeNull();
    expect(totalAttempts({ ...config, maxAttempts: 1 })).toBe(1);
    expect(retries({ ...config, maxAttempts: 1 })).toEqual([]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), (maxAttempts) => {
        expect(totalAttempts({ ...config, maxAttempts })).toBe(maxAttempts);
      }),
    );
  });

  it('rejects nonsense configs and attempts', () => {
    const base = { kind: 'exponential', initialDelay: 1, factor: 2, maxDelay: 10, maxAttempts: 3 } as const;
    expect(codeOf(() => attemptDelays({ ...base, factor: 0.5 }))).toBe('invalid_config');
    expect(codeOf(() => attemptDelays({ ...base, initialDelay: -1 }))).toBe('invalid_config');
    expect(codeOf(() => attemptDelays({ ...base, maxAttempts: 1.5 }))).toBe('invalid_config');
    expect(codeOf(() => attemptDelays({ ...base, maxAttempts: 0 }))).toBe('invalid_config');
    expect(codeOf(() => attemptDelays({ ...base, maxAttempts: 10_000 }))).toBe('invalid_config');
    expect(codeOf(() => attemptDelays({ kind: 'list', delays: [] }))).toBe('invalid_config');
    expect(codeOf(() => attemptDelays({ kind: 'list', delays: [1, Number.NaN] }))).toBe('invalid_config');
    expect(codeOf(() => nextDelay(base, 0))).toBe('invalid_argument');
  });
});

describe('jitter', () => {
  it('is deterministic with an injected RNG', () => {
    expect(applyJitter(10_000, { kind: 'full' }, () => 0.25)).toBe(2500);
    expect(applyJitter(10_000, { kind: 'percent', percent: 20 }, () => 0)).toBe(8000);
    expect(applyJitter(10_000, { kind: 'percent', percent: 20 }, () => 0.5)).toBe(10_000);
    expect(applyJitter(10_000, { kind: 'none' }, () => 0.9)).toBe(10_000);
    expect(applyJitter(0, { kind: 'full' }, () => 0.9)).toBe(0);
  });

  it('stays within bounds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 ** 9 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 0, max: 100 }),
        (delay, r, percent) => {
          const full = applyJitter(delay, { kind: 'full' }, () => r);
          expect(full).toBeGreaterThanOrEqual(0);
          expect(full).toBeLessThanOrEqual(delay);
          const spread = applyJitter(delay, { kind: 'percent', percent }, () => r);
          expect(spread).toBeGreaterThanOrEqual(Math.floor(delay * (1 - percent / 100)));
          expect(spread).toBeLessThanOrEqual(Math.ceil(delay * (1 + percent / 100)));
        },
      ),
    );
  });

  it('applies the schedule jitter in nextDelay', () => {
    const config: BackoffConfig = { kind: 'list', delays: [0, 100], jitter: { kind: 'full' } };
    expect(nextDelay(config, 1, { rng: () => 0.1 })).toBe(10_000);
    expect(codeOf(() => applyJitter(1000, { kind: 'percent', percent: 150 }, () => 0))).toBe(
      'invalid_config',
    );
  });
});

describe('Retry-After', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);

  it('parses delta-seconds and the three HTTP-date forms', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Thursday, 01-Jan-26 12:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Thu Jan  1 12:01:30 2026', now)).toBe(90_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 12:00:00 GMT', now)).toBe(0);
  });

  it('ignores anything else', () => {
    for (const value of [
      '',
      '-1',
      '1.5',
      'soon',
      '1e3',
      'Thu, 32 Jan 2026 12:00:00 GMT',
      'Thu, 31 Feb 2026 12:00:00 GMT',
      '2026-01-01T12:00:00Z',
      'Xyz, 01 Jan 2026 12:01:30 GMT',
      undefined,
      null,
    ]) {
      expect(parseRetryAfter(value, now), String(value)).toBeUndefined();
    }
    fc.assert(
      fc.property(fc.string(), (text) => {
        const value = parseRetryAfter(text, now);
        expect(value === undefined || (Number.isFinite(value) && value >= 0)).toBe(true);
      }),
    );
  });

  it('replaces the scheduled delay, clamped, without changing exhaustion', () => {
    const config = PETSTORE_SCHEDULE;
    expect(nextDelay(config, 1, { retryAfter: '30', now: () => now })).toBe(30_000);
    expect(nextDelay(config, 1, { retryAfter: '0' })).toBe(1000);
    expect(nextDelay(config, 1, { retryAfter: '999999' })).toBe(3_600_000);
    expect(nextDelay(config, 1, { retryAfter: '999999', maxRetryAfterMs: 60_000 })).toBe(60_000);
    expect(nextDelay(config, 1, { retryAfter: '0', minRetryAfterMs: 0 })).toBe(0);
    expect(nextDelay(config, 1, { retryAfter: 2500 })).toBe(2500);
    expect(nextDelay(config, 1, { retryAfter: 'garbage' })).toBe(1000);
    expect(nextDelay(config, 11, { retryAfter: '5' })).toBeNull();
  });
});
