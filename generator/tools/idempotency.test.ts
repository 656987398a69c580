import { describe, expect, it } from 'vitest';
import { type AttemptAnswer, duplicateSignal, judgeIdempotency } from './idempotency.js';

const ok = (attempt: number, body = '{"status":"processed"}', headers = {}): AttemptAnswer => ({
  attempt,
  status: 200,
  body,
  headers,
});

describe('duplicateSignal', () => {
  it('recognises the documented signals', () => {
    expect(duplicateSignal({ attempt: 1, status: 200, body: '{"status":"already processed"}' })).toBe('body');
    expect(duplicateSignal({ attempt: 1, status: 200, body: '{"status":"duplicate"}' })).toBe('body');
    expect(duplicateSignal({ attempt: 1, status: 202, body: '{"duplicate":true}' })).toBe('body');
    expect(duplicateSignal({ attempt: 1, status: 200, body: 'Already processed, thanks' })).toBe('body');
    expect(duplicateSignal({ attempt: 1, status: 204, headers: { 'Webhook-Duplicate': 'true' } })).toBe(
      'header',
    );
    expect(duplicateSignal({ attempt: 1, status: 409, body: '{"error":{"code":"in_progress"}}' })).toBe(
      'in-progress',
    );
  });

  it('ignores non-2xx answers and unrelated bodies', () => {
    expect(
      duplicateSignal({ attempt: 1, status: 500, body: '{"status":"already processed"}' }),
    ).toBeUndefined();
    expect(duplicateSignal({ attempt: 1, status: 200, body: '{"status":"processed"}' })).toBeUndefined();
    expect(duplicateSignal({ attempt: 1, status: 409, body: 'conflict' })).toBeUndefined();
    expect(duplicateSignal({ attempt: 1, error: 'ECONNRESET' })).toBeUndefined();
  });
});

describe('judgeIdempotency', () => {
  it('is OK for 1 processed + 9 duplicates', () => {
    const answers = [
      ok(1),
      ...Array.from({ length: 9 }, (_, i) => ok(i + 2, '{"status":"already processed"}')),
    ];
    const verdict = judgeIdempotency(answers);
    expect(verdict).toMatchObject({ ok: true, processed: 1, duplicates: 9, failed: 0 });
    expect(verdict.summary).toBe('idempotent: 1 processed + 9 duplicates');
  });

  it('counts concurrent in-progress refusals as duplicates', () => {
    const verdict = judgeIdempotency([
      ok(1),
      { attempt: 2, status: 409, body: '{"code":"in_progress"}' },
      ok(3, '{"status":"already processed"}'),
    ]);
    expect(verdict.ok).toBe(true);
    expect(verdict.summary).toBe(
      'idempotent: 1 processed + 2 duplicates (1 declined as in progress with 409)',
    );
  });

  it('warns when nothing says duplicate', () => {
    const verdict = judgeIdempotency(Array.from({ length: 10 }, (_, i) => ok(i + 1)));
    expect(verdict.ok).toBe(false);
    expect(verdict.summary).toMatch(/receiver may not be idempotent/);
  });

  it('warns on different status codes', () => {
    const verdict = judgeIdempotency([
      ok(1),
      { attempt: 2, status: 500, body: 'boom' },
      { attempt: 3, error: 'reset' },
    ]);
    expect(verdict.ok).toBe(false);
    expect(verdict.statuses).toEqual({ 200: 1, 500: 1, error: 1 });
    expect(verdict.summary).toBe(
      'different answers to the same delivery (200×1, 500×1, error×1): receiver may not be idempotent',
    );
  });

  it('says when every attempt was rejected', () => {
    const verdict = judgeIdempotency([1, 2].map((attempt) => ({ attempt, status: 401 })));
    expect(verdict.ok).toBe(false);
    expect(verdict.summary).toMatch(/^all 2 attempts failed \(401×2\)/);
  });

  it('flags a receiver that processed twice', () => {
    const verdict = judgeIdempotency([ok(1), ok(2), ok(3, '{"status":"already processed"}')]);
    expect(verdict.ok).toBe(false);
    expect(verdict.summary).toBe(
      '2 processed + 1 duplicate: the event was processed 2 times; receiver may not be idempotent',
    );
  });
});
