/**
 * `npm run example:petstore`, driven as a provider's operator and a customer would: the command
 * generates the SDK package, starts the Petstore provider and the customer app (its own process, with
 * the SDK as a `file:` dependency), and the customer registers through the registration API. A
 * business write at the provider reaches the customer as typed events handled exactly once; a
 * redelivery is deduped; and a customer SIGKILLed in the middle of a handler is restarted, gets the
 * redelivery, and still handles every event exactly once.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../types/typecheck.js';

interface Row {
  event_id: string;
  type: string;
  pet_id: number | null;
  order_id: string | null;
  pid: number;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

let proc: ChildProcess;
let output = '';
let provider = '';
let customer = '';
const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-example-'));
const acme = { authorization: 'Bearer acme-demo-key', 'content-type': 'application/json' };

async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms: number,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; output:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const received = async (): Promise<Row[]> =>
  ((await (await fetch(`${customer}/received`)).json()) as { data: Row[] }).data;
/** The rows once `count` are there (the customer may be restarting: connection errors are waited out). */
const receivedAll = (count: number, ms = 90_000) =>
  until(
    `${count} handled events`,
    async () => {
      const rows = await received().catch(() => undefined);
      return rows && rows.length >= count ? rows : undefined;
    },
    ms,
  );
/** The provider's logged attempts for one message. */
const attemptsOf = (messageId: string) =>
  output.split('\n').filter((line) => line.startsWith('[provider] → ') && line.includes(` ${messageId} to `))
    .length;
const pids = () => [...output.matchAll(/^customer pid (\d+)$/gm)].map((m) => Number(m[1]));

beforeAll(async () => {
  const [port, customerPort] = [await freePort(), await freePort()];
  provider = `http://127.0.0.1:${port}`;
  customer = `http://127.0.0.1:${customerPort}`;
  proc = spawn('npm', ['run', '--silent', 'example:petstore'], {
    cwd: repoRoot,
    detached: true, // its own process group: the teardown stops npm, the provider and the customer
    env: {
      ...process.env,
      PORT: String(port),
      CUSTOMER_PORT: String(customerPort),
      CUSTOMER_DB: path.join(dir, 'customer.sqlite'),
      // Each handler takes a while inside its transaction, so the kill below lands mid-handler.
      CUSTOMER_HANDLE_DELAY_MS: '300',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);
  await until('ready', () => (/^ready$/m.test(output) ? true : undefined), 240_000);
}, 250_000);

afterAll(async () => {
  if (proc.pid !== undefined && proc.exitCode === null) {
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    process.kill(-proc.pid, 'SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run example:petstore', () => {
  it('the customer app type-checks against the generated SDK package it installed', () => {
    const tsc = spawnSync(
      process.execPath,
      [
        path.join(repoRoot, 'node_modules/typescript/bin/tsc'),
        '-p',
        'examples/petstore-customer',
        '--noEmit',
      ],
      { cwd: repoRoot, encoding: 'utf8' },
    );
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 120_000);

  it('registered the customer through the registration API, with the SDK package generated', async () => {
    expect(output).toMatch(/^SDK petstore-openapi-webhooks generated from schemas\//m);
    expect(output).toMatch(
      /\[customer\] registered endpoint ep_\w+ for http:\/\/127\.0\.0\.1:\d+\/webhooks\/petstore/,
    );
    const endpoints = (await (await fetch(`${provider}/webhooks`, { headers: acme })).json()) as {
      data: { url: string; events: string[] }[];
    };
    expect(endpoints.data).toEqual([
      expect.objectContaining({ url: `${customer}/webhooks/petstore`, events: ['*'] }),
    ]);
  });

  it('an adoption reaches the customer as typed events, handled once; a redelivery is deduped', async () => {
    const adopted = await fetch(`${provider}/pets/1/adopt`, { method: 'POST', headers: acme, body: '{}' });
    expect(adopted.status).toBe(200);
    const rows = await receivedAll(2, 30_000);
    expect(rows.map((r) => [r.type, r.pet_id])).toEqual(
      expect.arrayContaining([
        ['pet.status_changed', 1],
        ['pet.adopted', 1],
      ]),
    );
    const orderId = rows.find((r) => r.type === 'pet.adopted')?.order_id;
    expect(orderId).toMatch(/^ord_/);

    // The provider delivers the same message again: the customer answers 200 without handling it.
    const { endpoint } = (await (await fetch(`${customer}/received`)).json()) as { endpoint: string };
    const messageId = rows[0]?.event_id;
    await until(
      'the first attempt recorded',
      () => (attemptsOf(messageId ?? '?') >= 1 ? true : undefined),
      30_000,
    );
    const again = await fetch(`${provider}/webhooks/${endpoint}/redeliver`, {
      method: 'POST',
      headers: acme,
      body: JSON.stringify({ messageId }),
    });
    expect(again.status).toBe(202);
    expect(((await again.json()) as { redelivered: number }).redelivered).toBe(1);
    await until(
      'the redelivered attempt',
      () => (attemptsOf(messageId ?? '?') >= 2 ? true : undefined),
      30_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await received()).toHaveLength(2);
  });

  it('a customer SIGKILLed mid-handler restarts, and every event is still handled exactly once', async () => {
    const before = (await received()).length;
    const pets: number[] = [];
    for (const name of ['Ada', 'Bo', 'Cy', 'Di']) {
      const pet = (await (
        await fetch(`${provider}/pets`, { method: 'POST', headers: acme, body: JSON.stringify({ name }) })
      ).json()) as { id: number };
      pets.push(pet.id);
    }
    const mark = output.length;
    for (const id of pets) {
      expect(
        (await fetch(`${provider}/pets/${id}/adopt`, { method: 'POST', headers: acme, body: '{}' })).status,
      ).toBe(200);
    }
    // Wait until the customer is inside a handler (its transaction open) after handling at least one.
    const inFlight = await until(
      'a handler in flight',
      () => {
        const log = output.slice(mark);
        if (!/\[customer\] handled /.test(log)) return undefined;
        const done = new Set([...log.matchAll(/\[customer\] handled \S+ (\S+)/g)].map((m) => m[1]));
        const started = [...log.matchAll(/\[customer\] handling \S+ (\S+)/g)].map((m) => m[1] as string);
        return started.find((id) => !done.has(id));
      },
      60_000,
    );
    const victim = pids().at(-1) as number;
    process.kill(victim, 'SIGKILL');
    await until(
      'the restart',
      () => (pids().length >= 2 && /customer exited \(SIGKILL\)/.test(output) ? true : undefined),
      30_000,
    );
    const restarted = pids().at(-1) as number;
    expect(restarted).not.toBe(victim);

    const rows = await receivedAll(before + 2 * pets.length);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // any late duplicate would land now
    const final = await received();
    expect(final).toHaveLength(before + 2 * pets.length);
    const ids = final.map((r) => r.event_id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of pets) {
      expect(
        final
          .filter((r) => r.pet_id === id)
          .map((r) => r.type)
          .sort(),
      ).toEqual(['pet.adopted', 'pet.status_changed']);
    }
    // The event killed mid-handler was rolled back with its transaction and handled after the restart.
    expect(rows.find((r) => r.event_id === inFlight)?.pid).toBe(restarted);
    expect(output).toMatch(
      /\[provider\] → pet\.\S+ \S+ to http:\/\/127\.0\.0\.1:\d+\/webhooks\/petstore: \S+ \(retry\)/,
    );
  }, 150_000);
});
