import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { turnWrites } from './turn-writes.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-turn-writes-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Writable = { prepare(sql: string): { run(...values: unknown[]): unknown } };

function open(name: string) {
  const db = new Database(path.join(dir, name));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (v TEXT PRIMARY KEY)');
  // Another connection sees only what is committed.
  const watcher = new Database(path.join(dir, name));
  const committed = () => (watcher.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
  const insert = (d: Writable, v: string) => {
    d.prepare('INSERT INTO t (v) VALUES (?)').run(v);
    return v;
  };
  const rows = () => (db.prepare('SELECT v FROM t ORDER BY rowid').all() as { v: string }[]).map((r) => r.v);
  const close = () => {
    watcher.close();
    db.close();
  };
  return { db, committed, insert, rows, close };
}

describe('turnWrites', () => {
  it('commits the writes of one turn in one transaction, `first` ones first', async () => {
    const { db, committed, insert, rows, close } = open('one-turn.db');
    const write = turnWrites(async () => db);
    let seenByClaim = -1;
    const results = await Promise.all([
      write((d) => {
        seenByClaim = committed();
        return insert(d, 'claim');
      }),
      write((d) => insert(d, 'completion'), { first: true }),
    ]);
    expect(results).toEqual(['claim', 'completion']);
    expect(rows()).toEqual(['completion', 'claim']);
    // The completion ran first, in the same transaction: not yet committed when the claim ran.
    expect(seenByClaim).toBe(0);

    // A write of a later turn is a transaction of its own.
    await write((d) => insert(d, 'next'));
    let seenLater = -1;
    await write((d) => {
      seenLater = committed();
      return insert(d, 'after');
    });
    expect(seenLater).toBe(3);
    close();
  });

  it('a write that throws fails alone and leaves nothing; the others commit', async () => {
    const { db, insert, rows, close } = open('one-fails.db');
    const write = turnWrites(async () => db);
    const results = await Promise.allSettled([
      write((d) => insert(d, 'a')),
      write((d) => {
        insert(d, 'half');
        throw new Error('boom');
      }),
      write((d) => insert(d, 'b'), { first: true }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('boom'));
    expect(rows()).toEqual(['b', 'a']);
    close();
  });

  it('fails every write of the turn, once, when its transaction cannot begin', async () => {
    const { db, insert, rows, close } = open('busy.db');
    db.pragma('busy_timeout = 0');
    const other = new Database(path.join(dir, 'busy.db'));
    other.exec('BEGIN IMMEDIATE');
    const write = turnWrites(async () => db);
    let runs = 0;
    const results = await Promise.allSettled([
      write((d) => {
        runs++;
        return insert(d, 'a');
      }),
      write((d) => insert(d, 'b'), { first: true }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/locked|busy/i);
    expect(runs).toBe(0);
    other.exec('ROLLBACK');
    // The writer is not stuck: the next turn goes through.
    await write((d) => insert(d, 'c'));
    expect(rows()).toEqual(['c']);
    other.close();
    close();
  });

  it('fails the writes when the connection cannot be had', async () => {
    const write = turnWrites(async () => {
      throw new Error('no connection');
    });
    await expect(write(() => 1)).rejects.toThrow('no connection');
  });
});
