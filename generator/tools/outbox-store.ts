/**
 * The outbox as `gen-webhooks outbox` sees it: a SQLite file or a PostgreSQL database holding the
 * runtime's tables. Reads the operators need (counts, filtered listings across endpoints and tenants)
 * and the purge are SQL over those tables (outbox-sqlite.ts, outbox-postgres.ts; outbox-open.ts picks one); a redelivery goes through the runtime's own `redeliver`,
 * so the CLI resets a delivery exactly as the API does. Nothing is created: a database without the
 * outbox's tables is an error, not a new empty outbox.
 */
import type { DeliveryStatus, Outbox } from '@gen-webhooks/runtime';
import { GeneratorError } from '../errors.js';

export interface DeliveryFilter {
  readonly status?: DeliveryStatus;
  readonly endpointId?: string;
  readonly tenant?: string;
  readonly eventType?: string;
  /** On the delivery's finish time (succeeded, dead), else its creation time: `since ≤ t < until`. */
  readonly since?: number;
  readonly until?: number;
  readonly limit?: number;
}

export interface DeliveryRow {
  readonly id: string;
  readonly messageId: string;
  readonly endpointId: string;
  readonly tenant: string;
  readonly url: string;
  readonly eventType: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly createdAt: number;
  readonly finishedAt: number | null;
}

export interface EndpointDeadLetters {
  readonly endpointId: string;
  readonly tenant: string;
  readonly url: string;
  readonly enabled: boolean;
  readonly dead: number;
  readonly newestAt: number;
}

export interface OutboxStats {
  readonly deliveries: Readonly<Record<DeliveryStatus, number>>;
  readonly endpoints: { readonly total: number; readonly disabled: number };
  /** Creation time of the oldest delivery still pending (how far behind delivery is). */
  readonly oldestPendingAt: number | null;
  /** Endpoints with dead letters, most first (at most 20). */
  readonly deadByEndpoint: readonly EndpointDeadLetters[];
}

export interface OutboxAdmin {
  readonly kind: 'sqlite' | 'postgres';
  /** The file, or the URL without its password. */
  readonly label: string;
  readonly outbox: Outbox;
  stats(tenant?: string): Promise<OutboxStats>;
  list(filter: DeliveryFilter): Promise<DeliveryRow[]>;
  /** Deletes the matching finished deliveries with their attempts, and messages left without any. */
  purge(filter: DeliveryFilter): Promise<{ deliveries: number; messages: number }>;
  close(): Promise<void>;
}

/** The driver, or an error that says which package to install. */
export async function loadDriver<T>(command: string, name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw new GeneratorError(
      'invalid_config',
      `${command}: the "${name}" package is needed to open this outbox`,
      {
        expected: `npm install ${name}`,
        cause: error,
      },
    );
  }
}

export function missingTables(command: string, where: string, table: string): GeneratorError {
  return new GeneratorError('invalid_argument', `${command}: ${where} has no outbox table ${table}`, {
    expected: 'the database and --schema / --prefix the outbox was created with (default prefix webhook_)',
  });
}

export const EMPTY_COUNTS: Readonly<Record<DeliveryStatus, number>> = {
  pending: 0,
  delivering: 0,
  succeeded: 0,
  dead: 0,
};
