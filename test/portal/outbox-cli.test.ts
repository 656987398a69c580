/**
 * `gen-webhooks outbox` against a real outbox on both databases: stats, the cross-endpoint listing of
 * dead letters (by endpoint, tenant, time), redelivery (dry run, then for real, through the runtime's
 * redeliver), purge (counts without --yes, deletes with it, attempts and orphaned messages included),
 * and the errors an operator meets (no outbox named, no file, no tables, bad flags).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxCommand } from '../../generator/tools/outbox.js';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import {
  DATABASE_URL,
  LOCAL,
  outboxFixtures,
  petContract,
  startServer,
  type TestServer,
  tempDir,
  virtualClock,
} from '../sender/helpers.js';
import { memoryIo, repoRoot } from '../tools/helpers.js';

const HOUR = 3_600_000;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe.each(outboxFixtures)('gen-webhooks outbox on $name', (fixture) => {
  const contract = petContract({ kind: 'list', delays: [0] });
  const clock = virtualClock(Date.UTC(2026, 2, 1, 12));
  let outbox: Outbox;
  let cleanup: () => Promise<void>;
  let receiver: TestServer;
  let db: string[];
  const ids = { e1: '', e2: '', e3: '' };

  const run = async (...argv: string[]) => {
    const io = memoryIo({}, clock.now);
    const code = await outboxCommand([...argv, ...db, '--json'], io);
    const [result] = io.jsonLines() as Record<string, unknown>[];
    return { code, result: result as Record<string, unknown>, err: io.err() };
  };

  beforeAll(async () => {
    if (fixture.skip) return;
    const made = await fixture.create('outboxcli', { tenancy: 'multi' });
    outbox = made.outbox;
    cleanup = made.cleanup;
    db =
      fixture.name === 'sqlite'
        ? ['--db', path.join(made.raw as string, 'outbox.db')]
        : ['--db', DATABASE_URL as string, '--schema', (made.raw as { schema: string }).schema];
    receiver = await startServer((req, res) => {
      res.statusCode = req.url === '/ok' ? 200 : 500;
      res.end();
    });
    const endpoint = (tenant: string, p: string) =>
      outbox.createEndpoint(
        { tenant, url: `${receiver.url}${p}`, events: ['*'], secret: SECRET },
        clock.now(),
      );
    ids.e1 = (await endpoint('acme', '/e1')).id;
    ids.e2 = (await endpoint('acme', '/e2')).id;
    ids.e3 = (await endpoint('bravo', '/ok')).id;
    const sender = createSender(contract, { outbox, now: clock.now });
    const worker = createWorker({ outbox, contract, urlPolicy: LOCAL, now: clock.now });
    // Two rounds two hours apart: each leaves one dead letter on e1 and e2, and one success on e3.
    for (let round = 0; round < 2; round++) {
      await sender.send('pet.adopted', { petId: `p${round}`, by: 'u' }, { tenant: 'acme' });
      await sender.send('pet.adopted', { petId: `q${round}`, by: 'u' }, { tenant: 'bravo' });
      expect(await worker.runOnce()).toMatchObject({ dead: 2, succeeded: 1 });
      clock.advance(2 * HOUR);
    }
    await worker.stop();
  });
  afterAll(async () => {
    if (fixture.skip) return;
    await receiver.close();
    await cleanup();
  });

  it.skipIf(fixture.skip)('stats: counts, endpoints and dead letters by endpoint', async () => {
    const { code, result } = await run('stats');
    expect(code).toBe(0);
    expect(result).toMatchObject({
      ok: true,
      deliveries: { pending: 0, delivering: 0, succeeded: 2, dead: 4 },
      endpoints: { total: 3, disabled: 0 },
      oldestPendingAt: null,
    });
    const dead = result.deadByEndpoint as { endpointId: string; dead: number; tenant: string }[];
    expect(dead.map((e) => [e.endpointId, e.dead, e.tenant]).sort()).toEqual(
      [
        [ids.e1, 2, 'acme'],
        [ids.e2, 2, 'acme'],
      ].sort(),
    );
    expect((await run('stats', '--tenant', 'bravo')).result).toMatchObject({
      deliveries: { dead: 0, succeeded: 2 },
    });
  });

  it.skipIf(fixture.skip)('list: dead letters across endpoints, by endpoint, tenant and time', async () => {
    const all = (await run('list', '--status', 'dead')).result.deliveries as {
      endpointId: string;
      status: string;
    }[];
    expect(all).toHaveLength(4);
    expect(new Set(all.map((d) => d.endpointId))).toEqual(new Set([ids.e1, ids.e2]));
    expect(
      ((await run('list', '--status', 'dead', '--endpoint', ids.e1)).result.deliveries as []).length,
    ).toBe(2);
    expect(
      ((await run('list', '--status', 'dead', '--tenant', 'bravo')).result.deliveries as []).length,
    ).toBe(0);
    // Now is 4 h after the first round: the last 3 h hold the second round only.
    const recent = (await run('list', '--status', 'dead', '--since', '3h')).result.deliveries as {
      finishedAt: string;
    }[];
    expect(recent.map((d) => d.finishedAt)).toEqual([
      new Date(Date.UTC(2026, 2, 1, 14)).toISOString(),
      new Date(Date.UTC(2026, 2, 1, 14)).toISOString(),
    ]);
    const older = await run('list', '--until', '2026-03-01T13:00:00Z');
    expect((older.result.deliveries as { status: string }[]).map((d) => d.status).sort()).toEqual([
      'dead',
      'dead',
      'succeeded',
    ]);
    expect(((await run('list', '--limit', '1')).result.deliveries as []).length).toBe(1);
  });

  it.skipIf(fixture.skip)(
    'redeliver: a dry run changes nothing; then the matches are pending again',
    async () => {
      const dry = await run('redeliver', '--status', 'dead', '--since', '3h', '--dry-run');
      expect(dry.result).toMatchObject({ ok: true, dryRun: true, matched: 2, redelivered: 0 });
      expect(await outbox.listDeliveries({ status: 'pending' })).toHaveLength(0);
      const real = await run('redeliver', '--status', 'dead', '--since', '3h');
      expect(real.result).toMatchObject({ ok: true, dryRun: false, matched: 2, redelivered: 2 });
      const pending = await outbox.listDeliveries({ status: 'pending' });
      expect(pending.map((d) => d.attempts)).toEqual([0, 0]);
      expect(pending.every((d) => d.nextAttemptAt === clock.now())).toBe(true);
      // The attempt history stays.
      const history = await outbox.listAttempts({ deliveryId: pending[0]?.id as string });
      expect(history).toHaveLength(1);
      // Tenant-scoped: bravo has no dead letters to queue.
      expect((await run('redeliver', '--tenant', 'bravo')).result).toMatchObject({
        matched: 0,
        redelivered: 0,
      });
    },
  );

  it.skipIf(fixture.skip)(
    'purge: counts without --yes; deletes deliveries, attempts and orphaned messages',
    async () => {
      const dry = await run('purge', '--endpoint', ids.e1);
      expect(dry.result).toMatchObject({ ok: true, dryRun: true, matched: 1, deleted: 0 });
      expect(await outbox.listDeliveries({ status: 'dead' })).toHaveLength(2);
      const dead = await outbox.listDeliveries({ status: 'dead', endpointId: ids.e1 });
      const gone = await run('purge', '--endpoint', ids.e1, '--yes');
      // The message still has its e2 delivery, so it stays.
      expect(gone.result).toMatchObject({ ok: true, dryRun: false, deleted: 1, messagesDeleted: 0 });
      expect(await outbox.getDelivery(dead[0]?.id as string)).toBeUndefined();
      expect(await outbox.listAttempts({ deliveryId: dead[0]?.id as string })).toEqual([]);
      const all = await run('purge', '--status', 'dead', '--yes');
      expect(all.result).toMatchObject({ deleted: 1, messagesDeleted: 1 });
      expect(await outbox.listDeliveries({ status: 'dead' })).toEqual([]);
      expect(await outbox.listDeliveries({ status: 'pending' })).toHaveLength(2);
      expect((await run('stats')).result).toMatchObject({
        deliveries: { dead: 0, pending: 2, succeeded: 2 },
      });
    },
  );

  it.skipIf(fixture.skip)('refuses bad flags with exit 2 and one line naming the problem', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['redeliver', '--status', 'pending'],
        /--status "pending" is not one of these \(expected dead, succeeded\)/,
      ],
      [['list', '--since', 'yesterday'], /--since "yesterday" is not a time/],
      [['list', '--since', '1h', '--until', '2h'], /--since must be before --until/],
      [['list', '--limit', '0'], /--limit "0" is out of range/],
      [['purge', '--limit', '5'], /purge takes no --limit/],
      [['vacuum'], /unknown action "vacuum"/],
      [['list', '--prefix', 'x;drop'], /--prefix "x;drop" is not an SQL identifier/],
    ];
    for (const [argv, message] of cases) {
      const { code, err } = await run(...argv);
      expect({ argv, code }).toEqual({ argv, code: 2 });
      expect(err).toMatch(message);
    }
    const missing = await run('list', '--prefix', 'other_');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/has no outbox table .*other_deliveries/);
  });
});

describe('gen-webhooks outbox: finding the outbox', () => {
  it('needs --db or DATABASE_URL, an existing file, and outbox tables in it', async () => {
    const io = memoryIo({});
    expect(await outboxCommand(['stats'], io)).toBe(2);
    expect(io.err()).toMatch(/say which outbox: --db/);
    const dir = tempDir('outboxcli-missing');
    const file = path.join(dir, 'nothing.db');
    const io2 = memoryIo({ DATABASE_URL: `sqlite:${file}` });
    expect(await outboxCommand(['stats'], io2)).toBe(2);
    expect(io2.err()).toMatch(/no SQLite outbox at .*nothing\.db.*\[file_not_found\]/);
    expect(fs.existsSync(file)).toBe(false); // not created
    fs.writeFileSync(file, '');
    const io3 = memoryIo({});
    expect(await outboxCommand(['stats', '--db', file], io3)).toBe(2);
    expect(io3.err()).toMatch(/has no outbox table webhook_deliveries/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is a command of the CLI (help lists it; it runs as a process)', async () => {
    const dir = tempDir('outboxcli-process');
    const file = path.join(dir, 'outbox.db');
    const { sqliteOutbox } = await import('../../runtime/deliver/sqlite-outbox.js');
    const outbox = sqliteOutbox(file);
    await outbox.init();
    await outbox.close();
    const tsx = path.join(repoRoot, 'node_modules/.bin/tsx');
    const cli = path.join(repoRoot, 'generator/cli.ts');
    const help = await promisify(execFile)(tsx, [cli, '--help'], { cwd: repoRoot });
    expect(help.stdout).toMatch(/ {2}outbox {9}Outbox stats, dead letters/);
    const stats = await promisify(execFile)(tsx, [cli, 'outbox', 'stats', '--db', file], { cwd: repoRoot });
    expect(stats.stdout).toContain('Deliveries  pending 0 · delivering 0 · succeeded 0 · dead 0');
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
