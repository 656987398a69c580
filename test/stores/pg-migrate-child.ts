/**
 * One process of the concurrent-migration test: `node --import tsx pg-migrate-child.ts <schema> <table>`
 * with DATABASE_URL. Connects, prints `READY <pid> <backend pid>`, waits for `GO` on stdin (so every
 * process starts its migration at the same moment), runs `migrate()`, prints `DONE` and exits 0;
 * prints `FAILED <message>` and exits 1 when the migration throws.
 */
import pg from 'pg';
import { postgresStore } from '../../runtime/stores/postgres.js';

const [schema, table] = process.argv.slice(2);
if (schema === undefined || table === undefined) {
  process.stderr.write('usage: pg-migrate-child.ts <schema> <table>\n');
  process.exit(2);
}
const client = new pg.Client({ connectionString: process.env['DATABASE_URL'] });
await client.connect();
const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
const store = postgresStore(client, { schema, table, autoMigrate: false });
process.stdout.write(`READY ${process.pid} ${backend}\n`);

await new Promise<void>((resolve) => {
  let input = '';
  process.stdin.on('data', (chunk: Buffer) => {
    input += chunk.toString();
    if (input.includes('GO\n')) resolve();
  });
});
let code = 0;
try {
  await store.migrate();
  process.stdout.write('DONE\n');
} catch (error) {
  const cause = (error as { cause?: unknown }).cause;
  process.stdout.write(`FAILED ${String(error)}${cause === undefined ? '' : ` (${String(cause)})`}\n`);
  code = 1;
}
await client.end();
process.exit(code);
