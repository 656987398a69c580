/**
 * examples/petstore-provider driven end to end: its one command starts the provider and the customer
 * app as a child process (killed with SIGKILL at the end); the test then uses it as a tenant would —
 * HTTPS-only registration, business writes whose events commit (or roll back) with them, delivery to
 * the customer's generated receiver, retries after a failing answer, redelivery deduplicated by the
 * customer, the dead-letter listing, a portal link — and checks the workers' schedule and timeout.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptDelays } from '../../runtime/backoff.js';
import { tempDir } from '../sender/helpers.js';
import { type PetstoreExample, startPetstoreExample } from '../support/petstore-example.js';
import { eventually } from './helpers.js';

interface Handled {
  type: string;
  id: string;
  petId?: number;
}

describe('examples/petstore-provider', () => {
  let example: PetstoreExample | undefined;
  let provider = '';
  let customer = '';
  let endpointId = '';
  let dir = '';

  const api = async (key: string, method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${provider}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as never };
  };
  const acme = (method: string, pathname: string, body?: unknown) =>
    api('acme-demo-key', method, pathname, body);
  const handled = async () =>
    ((await (await fetch(`${customer}/received`)).json()) as { data: Handled[] }).data;

  beforeAll(async () => {
    dir = tempDir('petstore-provider');
    example = await startPetstoreExample(dir);
    provider = example.printed(/^Petstore provider +(\S+)/m) as string;
    customer = example.printed(/^Customer app +(\S+)/m) as string;
    endpointId = example.printed(/\(endpoint (ep_\w+) of tenant acme\)/) as string;
    expect(endpointId).toBeDefined();
  }, 90_000);
  afterAll(() => {
    example?.child.kill('SIGKILL');
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses endpoints that are not HTTPS on a public address (the demo allows 127.0.0.1 only)', async () => {
    for (const url of ['http://example.com/hooks', 'http://127.0.0.2/hooks', 'https://10.1.2.3/hooks']) {
      const answer = await acme('POST', '/webhooks', { url, events: ['*'] });
      expect({ url, status: answer.status }).toEqual({ url, status: 400 });
      expect((answer.body as { error: { code: string } }).error.code).toMatch(
        /^(insecure_url|blocked_address)$/,
      );
    }
    expect(
      (await api('wrong-key', 'POST', '/webhooks', { url: 'https://x.example/h', events: ['*'] })).status,
    ).toBe(401);
  });

  it('delivers an adoption’s events to the customer’s generated receiver', async () => {
    const adoption = await acme('POST', '/pets/1/adopt', {});
    expect(adoption.status).toBe(200);
    const { messages } = adoption.body as { messages: string[] };
    const got = await eventually(async () => {
      const list = await handled();
      return list.length >= 2 ? list : undefined;
    });
    expect(got.map((h) => [h.type, h.id, h.petId])).toEqual([
      ['pet.status_changed', messages[0], 1],
      ['pet.adopted', messages[1], 1],
    ]);
    expect((await acme('POST', '/pets/1/adopt', {})).status).toBe(409);
    // Another tenant's pet is not yours to adopt.
    expect((await api('bravo-demo-key', 'POST', '/pets/2/adopt', {})).status).toBe(409);
  });

  it('rolls the events back with a failed business write (same SQLite transaction)', async () => {
    const invalid = await acme('POST', '/pets/2/adopt', { notes: 'x'.repeat(2001) });
    expect(invalid.status).toBe(400);
    expect((invalid.body as { error: { code: string } }).error.code).toBe('invalid_payload');
    const pets = (await acme('GET', '/pets')).body as { data: { id: number; status: string }[] };
    expect(pets.data.find((p) => p.id === 2)?.status).toBe('available');
    // The status_changed event sent before the invalid one was rolled back too: only 2 attempts so far.
    const attempts = (await acme('GET', `/webhooks/${endpointId}/deliveries`)).body as { data: unknown[] };
    expect(attempts.data).toHaveLength(2);
  });

  it('retries after a failed answer, on the contract’s schedule', async () => {
    await fetch(`${customer}/fail`, { method: 'POST' });
    const adoption = await acme('POST', '/pets/2/adopt', {});
    expect(adoption.status).toBe(200);
    const failed = await eventually(async () => {
      const { data } = (await acme('GET', `/webhooks/${endpointId}/deliveries`)).body as {
        data: { statusCode: number; outcome: string; responseSnippet: string }[];
      };
      return data.filter((a) => a.outcome === 'failed').length >= 2 ? data : undefined;
    });
    expect(failed.filter((a) => a.outcome === 'failed').map((a) => a.statusCode)).toEqual([503, 503]);
    expect(failed[0]?.responseSnippet).toContain('failing on purpose');
    await fetch(`${customer}/recover`, { method: 'POST' });
    // The first retry is 1 s after the failure.
    const after = await eventually(async () => {
      const list = await handled();
      return list.length >= 4 ? list : undefined;
    }, 15_000);
    expect(after.slice(2).map((h) => [h.type, h.petId])).toEqual(
      expect.arrayContaining([
        ['pet.status_changed', 2],
        ['pet.adopted', 2],
      ]),
    );
  });

  it('redelivers a message on request; the customer deduplicates it', async () => {
    const messageId = (await handled())[1]?.id as string;
    const answer = await acme('POST', `/webhooks/${endpointId}/redeliver`, { messageId });
    expect(answer).toEqual({ status: 202, body: { redelivered: 1 } });
    await eventually(async () => {
      const { data } = (await acme('GET', `/webhooks/${endpointId}/deliveries`)).body as {
        data: { messageId: string; outcome: string }[];
      };
      return data.filter((a) => a.messageId === messageId && a.outcome === 'succeeded').length === 2
        ? true
        : undefined;
    });
    expect((await handled()).filter((h) => h.id === messageId)).toHaveLength(1);
  });

  it('lists dead letters and opens the portal from a link', async () => {
    expect(await acme('GET', '/webhooks/dead-letters')).toEqual({ status: 200, body: { data: [] } });
    const link = (await acme('POST', '/portal-links')).body as { url: string };
    expect(link.url).toMatch(/\/webhooks\/portal\/open\?token=/);
    const opened = await fetch(link.url);
    expect(opened.status).toBe(200);
    const cookie = opened.headers.getSetCookie()[0]?.split(';')[0] as string;
    const page = await (await fetch(`${provider}/webhooks/portal/`, { headers: { cookie } })).text();
    expect(page).toContain(`${customer}/webhooks/petstore`);
    expect(page).toContain('Account <strong>acme</strong>');
  });

  it('runs its workers on the seed’s schedule (the first attempt and 10 retries, 1 s doubling to 512 s) with a 5 s timeout', async () => {
    const { ATTEMPT_TIMEOUT_MS, WORKERS } = await import('../../examples/petstore-provider/provider.js');
    const { contract } = await import('../../generated/petstore-openapi/index.js');
    expect(ATTEMPT_TIMEOUT_MS).toBe(5000);
    expect(WORKERS).toBeGreaterThan(1);
    expect(contract.retry).toEqual({
      kind: 'exponential',
      initialDelay: 1,
      factor: 2,
      maxDelay: 512,
      maxAttempts: 11,
    });
    expect(attemptDelays(contract.retry as never)).toEqual([0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512]);
  });
});
