import { afterEach, describe, expect, it } from 'vitest';
import { type MockReceiver, type MockReceiverOptions, startMockReceiver } from './mock-receiver.js';
import type { ToolIo } from './output.js';

function memoryIo(now?: () => number): ToolIo & { out: () => string } {
  let text = '';
  const stream = { write: (chunk: string) => (text += chunk) };
  return { stdout: stream, stderr: { write: () => true }, env: {}, ...(now ? { now } : {}), out: () => text };
}

const open: MockReceiver[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

async function start(options: Partial<MockReceiverOptions>, io = memoryIo()) {
  const receiver = await startMockReceiver({ port: 0, ...options }, io);
  open.push(receiver);
  return receiver;
}

function post(url: string, body: string, headers: Record<string, string> = {}) {
  return fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

describe('mock-receiver', () => {
  it('fails the first N attempts of each event id, then answers 200', async () => {
    const receiver = await start({ failFirst: 2, status: 503, retryAfter: '7' });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await post(receiver.url, '{}', { 'webhook-id': 'msg_a' });
      if (res.status === 503) expect(res.headers.get('retry-after')).toBe('7');
      statuses.push(res.status);
    }
    statuses.push((await post(receiver.url, '{}', { 'webhook-id': 'msg_b' })).status);
    expect(statuses).toEqual([503, 503, 200, 503]);
    const report = receiver.report();
    expect(report.requests).toBe(4);
    expect(report.outcomes).toEqual({ ok: 1, failed: 3, dropped: 0, abandoned: 0 });
    const a = report.events.find((e) => e.id === 'msg_a');
    expect(a?.attempts).toBe(3);
    expect(a?.delivered).toBe(true);
    expect(a?.history.map((h) => h.outcome)).toEqual(['failed', 'failed', 'ok']);
    expect(report.events.find((e) => e.id === 'msg_b')?.delivered).toBe(false);
  });

  it('groups by envelope id, then by body hash, and records gaps on the injected clock', async () => {
    let clock = 1_000_000;
    const receiver = await start(
      {},
      memoryIo(() => clock),
    );
    const body = JSON.stringify({ id: 'evt_1', type: 'pet.adopted', data: {} });
    await post(receiver.url, body);
    clock += 1500;
    await post(receiver.url, body);
    await post(receiver.url, 'not json');
    await post(receiver.url, 'not json');
    const report = receiver.report();
    const evt = report.events.find((e) => e.id === 'evt_1');
    expect(evt).toMatchObject({ idSource: 'body.id', type: 'pet.adopted', attempts: 2, gapsMs: [1500] });
    const hashed = report.events.find((e) => e.idSource === 'body-hash');
    expect(hashed?.attempts).toBe(2);
    expect(hashed?.id).toMatch(/^sha256:[0-9a-f]{16}$/);
  });

  it('drops responses (connection destroyed after reading the body)', async () => {
    const receiver = await start({ dropResponseRate: 1 });
    await expect(post(receiver.url, '{"id":"x"}')).rejects.toThrow();
    expect(receiver.report().outcomes.dropped).toBe(1);
  });

  it('is deterministic for a seed', async () => {
    const run = async () => {
      const receiver = await start({ failRate: 0.5, seed: 42 });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i += 1) statuses.push((await post(receiver.url, `{"id":"e${i}"}`)).status);
      await receiver.close();
      return statuses;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    expect(first).toContain(200);
    expect(first).toContain(500);
  });

  it('delays answers; a sender that gives up is recorded as abandoned', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const receiver = await start({ delayMs: 6000, sleep: () => gate });
    const controller = new AbortController();
    const pending = post(receiver.url, '{"id":"slow"}');
    const aborted = fetch(receiver.url, {
      method: 'POST',
      body: '{"id":"slow2"}',
      signal: controller.signal,
    }).catch(() => 'aborted');
    const outcomeOf = (id: string) => receiver.report().events.find((e) => e.id === id)?.history[0]?.outcome;
    // Bounded polls: the server must have read both requests, then seen the hang-up.
    for (let i = 0; i < 200 && receiver.report().requests < 2; i += 1)
      await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expect(await aborted).toBe('aborted');
    for (let i = 0; i < 200 && outcomeOf('slow2') !== 'abandoned'; i += 1)
      await new Promise((r) => setTimeout(r, 5));
    release();
    expect((await pending).status).toBe(200);
    const outcomes = { slow: outcomeOf('slow'), slow2: outcomeOf('slow2') };
    expect(outcomes).toEqual({ slow: 'ok', slow2: 'abandoned' });
  });

  it('serves the report at GET /__report and clears it with DELETE', async () => {
    const receiver = await start({ json: true });
    await post(receiver.url, '{}', { 'webhook-id': 'msg_1' });
    const report = (await (await fetch(`${receiver.url}/__report`)).json()) as { requests: number };
    expect(report.requests).toBe(1);
    expect((await fetch(`${receiver.url}/__report`, { method: 'DELETE' })).status).toBe(204);
    expect(receiver.report().requests).toBe(0);
  });

  it('prints one line per attempt and a readable report', async () => {
    const io = memoryIo();
    const receiver = await start({ failFirst: 1 }, io);
    await post(receiver.url, '{}', { 'webhook-id': 'msg_p', 'webhook-type': 'pet.adopted' });
    await post(receiver.url, '{}', { 'webhook-id': 'msg_p' });
    receiver.printReport();
    const out = io.out();
    expect(out).toContain('msg_p pet.adopted attempt 1 → 500 failed');
    expect(out).toContain('attempt 2 → 200 ok');
    expect(out).toContain('msg_p (pet.adopted): 2 attempt(s), delivered; 500 → 200;');
    expect(out).not.toContain('\u001b[');
  });
});
