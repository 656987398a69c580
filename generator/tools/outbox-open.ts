/** Opens the outbox a `gen-webhooks outbox` command names: a SQLite file, or a PostgreSQL URL. */
import fs from 'node:fs';
import { GeneratorError } from '../errors.js';
import type { OutboxAdmin } from './outbox-store.js';

export interface OpenOptions {
  /** A SQLite file, `sqlite:`/`file:` + a path, or a `postgres://` URL. */
  readonly target: string;
  readonly schema: string;
  readonly prefix: string;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export async function openOutboxAdmin(command: string, options: OpenOptions): Promise<OutboxAdmin> {
  for (const [flag, value] of [
    ['schema', options.schema],
    ['prefix', options.prefix],
  ] as const) {
    if (!IDENT.test(value)) {
      throw new GeneratorError(
        'invalid_argument',
        `${command}: --${flag} ${JSON.stringify(value)} is not an SQL identifier`,
        {
          expected: 'letters, digits and _ (not first a digit)',
        },
      );
    }
  }
  if (/^postgres(ql)?:\/\//i.test(options.target)) {
    const { openPostgresAdmin } = await import('./outbox-postgres.js');
    return openPostgresAdmin(command, options.target, options.schema, options.prefix);
  }
  const file = options.target.replace(/^(sqlite|file):(\/\/)?/i, '');
  if (!fs.existsSync(file)) {
    throw new GeneratorError('file_not_found', `${command}: no SQLite outbox at ${file}`, {
      expected: 'the SQLite file of sqliteOutbox(), or a postgres:// URL (--db or DATABASE_URL)',
    });
  }
  const { openSqliteAdmin } = await import('./outbox-sqlite.js');
  return openSqliteAdmin(command, file, options.prefix);
}
