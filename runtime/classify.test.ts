import { describe, expect, it } from 'vitest';
import { classifyAttempt, DEFAULT_TIMEOUT_MS } from './classify.js';
import { WebhookError } from './errors.js';

const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('classifyAttempt by status', () => {
  const table: Array<[number, string]> = [
    [200, 'success'],
    [201, 'success'],
    [204, 'success'],
    [299, 'success'],
    [301, 'fail'],
    [302, 'fail'],
    [307, 'fail'],
    [308, 'fail'],
    [400, 'fail'],
    [401, 'fail'],
    [403, 'fail'],
    [404, 'fail'],
    [408, 'retry'],
    [410, 'gone'],
    [413, 'fail'],
    [422, 'fail'],
    [425, 'retry'],
    [429, 'retry'],
    [500, 'retry'],
    [502, 'retry'],
    [503, 'retry'],
    [504, 'retry'],
    [599, 'retry'],
    [100, 'fail'],
    [0, 'fail'],
    [600, 'fail'],
  ];
  it.each(table)('%i → %s', (status, outcome) => {
    expect(classifyAttempt({ status }).outcome).toBe(outcome);
  });

  it('gives reasons and codes', () => {
    expect(classifyAttempt({ status: 200 })).toEqual({ outcome: 'success', reason: 'http_200' });
    expect(classifyAttempt({ status: 302 })).toEqual({
      outcome: 'fail',
      reason: 'redirect_302',
      code: 'redirect',
    });
    expect(classifyAttempt({ status: 410 })).toEqual({
      outcome: 'gone',
      reason: 'http_410',
      code: 'endpoint_disabled',
    });
    expect(classifyAttempt({ status: 503 })).toEqual({
      outcome: 'retry',
      reason: 'http_503',
      code: 'http_error',
    });
  });
});

describe('classifyAttempt by error', () => {
  const table: Array<[string, unknown, string, string]> = [
    ['ECONNREFUSED', withCode('ECONNREFUSED'), 'retry', 'connection_refused'],
    ['ECONNRESET', withCode('ECONNRESET'), 'retry', 'connection_reset'],
    ['EPIPE', withCode('EPIPE'), 'retry', 'connection_reset'],
    ['ENOTFOUND', withCode('ENOTFOUND'), 'retry', 'dns_failure'],
    ['EAI_AGAIN', withCode('EAI_AGAIN'), 'retry', 'dns_failure'],
    ['ETIMEDOUT', withCode('ETIMEDOUT'), 'retry', 'timeout'],
    ['UND_ERR_CONNECT_TIMEOUT', withCode('UND_ERR_CONNECT_TIMEOUT'), 'retry', 'timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', withCode('UND_ERR_HEADERS_TIMEOUT'), 'retry', 'timeout'],
    ['UND_ERR_SOCKET', withCode('UND_ERR_SOCKET'), 'retry', 'connection_reset'],
    ['UND_ERR_other', withCode('UND_ERR_SOMETHING_NEW'), 'retry', 'network_error'],
    ['TLS', withCode('CERT_HAS_EXPIRED'), 'retry', 'tls_error'],
    ['AbortError', new DOMException('aborted', 'AbortError'), 'retry', 'aborted'],
    ['TimeoutError', new DOMException('timed out', 'TimeoutError'), 'retry', 'timeout'],
    [
      'fetch failed → cause',
      new TypeError('fetch failed', { cause: withCode('ECONNREFUSED') }),
      'retry',
      'connection_refused',
    ],
    [
      'AggregateError (happy eyeballs)',
      new TypeError('fetch failed', {
        cause: new AggregateError([withCode('ENETUNREACH'), withCode('ECONNREFUSED')]),
      }),
      'retry',
      'host_unreachable',
    ],
    ['WebhookError timeout', new WebhookError('timeout', 't'), 'retry', 'timeout'],
    ['WebhookError blocked_address', new WebhookError('blocked_address', 'b'), 'fail', 'blocked_address'],
    ['WebhookError insecure_url', new WebhookError('insecure_url', 'i'), 'fail', 'insecure_url'],
    [
      'WebhookError endpoint_disabled',
      new WebhookError('endpoint_disabled', 'd'),
      'gone',
      'endpoint_disabled',
    ],
    ['unknown error', new Error('???'), 'retry', 'network_error'],
    ['non-error value', 'boom', 'retry', 'network_error'],
  ];
  it.each(table)('%s', (_, error, outcome, reason) => {
    const result = classifyAttempt({ error });
    expect(result.outcome).toBe(outcome);
    expect(result.reason).toBe(reason);
  });

  it('prefers the status when both are given, and retries when nothing is known', () => {
    expect(classifyAttempt({ status: 200, error: withCode('ECONNRESET') }).outcome).toBe('success');
    expect(classifyAttempt({}).outcome).toBe('retry');
  });

  it('stops walking self-referencing cause chains', () => {
    const error = new Error('loop') as Error & { cause?: unknown };
    error.cause = error;
    expect(classifyAttempt({ error }).outcome).toBe('retry');
  });

  it('exports the default timeout', () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(5000);
  });
});
