/**
 * The Petstore's own data — pets, per tenant (the partner shelters and apps that use the API) — and
 * its business writes. Each write and the webhooks it causes commit in ONE SQLite transaction: the
 * outbox lives in the same database, so an adoption exists if and only if its events do.
 */
import { randomUUID } from 'node:crypto';
import type { Sender } from '@gen-webhooks/runtime';
import type Database from 'better-sqlite3';
import type { Events } from '../../generated/petstore-openapi/index.js';

export interface Pet {
  readonly id: number;
  readonly tenant: string;
  readonly name: string;
  readonly status: 'available' | 'pending' | 'adopted' | 'unavailable';
}

export class Conflict extends Error {}

export function createShop(db: Database.Database, sender: Sender<Events>) {
  db.exec(`
    CREATE TABLE IF NOT EXISTS pets (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant TEXT NOT NULL,
      name TEXT NOT NULL,
      status TEXT NOT NULL DEFAULT 'available'
    );
    CREATE TABLE IF NOT EXISTS adoptions (
      order_id TEXT PRIMARY KEY,
      pet_id INTEGER NOT NULL UNIQUE REFERENCES pets (id),
      user_id TEXT NOT NULL,
      adopted_at TEXT NOT NULL
    );
  `);

  /**
   * BEGIN … COMMIT around an async body. `sender.send` awaits no I/O (validation and the enqueue are
   * synchronous on better-sqlite3), so nothing else runs on the connection inside the transaction.
   */
  const inTransaction = async <T>(body: () => Promise<T>): Promise<T> => {
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = await body();
      db.exec('COMMIT');
      return result;
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  };

  return {
    list(tenant: string): Pet[] {
      return db
        .prepare('SELECT id, tenant, name, status FROM pets WHERE tenant = ? ORDER BY id')
        .all(tenant) as Pet[];
    },

    add(tenant: string, name: string): Pet {
      const row = db.prepare('INSERT INTO pets (tenant, name) VALUES (?, ?) RETURNING *').get(tenant, name);
      return row as Pet;
    },

    /** The pet is adopted and both webhooks are queued — or, on any error, none of it happened. */
    adopt(tenant: string, petId: number, input: { userId?: string; notes?: string }) {
      return inTransaction(async () => {
        const changed = db
          .prepare(`UPDATE pets SET status = 'adopted' WHERE id = ? AND tenant = ? AND status = 'available'`)
          .run(petId, tenant).changes;
        if (changed === 0) throw new Conflict(`pet ${petId} is not available`);
        const orderId = `ord_${randomUUID().replaceAll('-', '').slice(0, 8)}`;
        const userId = input.userId ?? randomUUID();
        const now = new Date().toISOString();
        db.prepare('INSERT INTO adoptions (order_id, pet_id, user_id, adopted_at) VALUES (?, ?, ?, ?)').run(
          orderId,
          petId,
          userId,
          now,
        );
        const statusChanged = await sender.send(
          'pet.status_changed',
          { petId, previousStatus: 'available', status: 'adopted', changedAt: now, reason: 'adopted' },
          { tx: db, tenant },
        );
        // Checked against the contract here: an invalid payload (e.g. notes over 2000 characters)
        // throws, and the rollback takes the adoption and the first event with it.
        const adopted = await sender.send(
          'pet.adopted',
          {
            petId,
            userId,
            orderId,
            adoptionDate: now,
            adoptionFee: { amount: 7500, currency: 'EUR' },
            ...(input.notes !== undefined ? { notes: input.notes } : {}),
          },
          { tx: db, tenant },
        );
        return { orderId, messages: [statusChanged.messageId, adopted.messageId] };
      });
    },
  };
}
