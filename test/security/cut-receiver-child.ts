/**
 * A transactional PostgreSQL receiver in its own process, so a crash is seen as a crash. DB is the
 * connection URL (through the test's proxy), SCHEMA the schema of its tables. The first handler run
 * prints `HANDLER_STARTED` and waits for a `go` line on stdin before its write, so the test can cut
 * the connection in between; later runs write at once. Prints `LISTENING <port>` when ready.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import readline from 'node:readline';
import pg from 'pg';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import { postgresStore } from '../../runtime/stores/postgres.js';
import { petstore, SECRET } from '../receiver/fixtures.js';

const schema = process.env['SCHEMA'] ?? 'public';
const pool = new pg.Pool({ connectionString: process.env['DB'], max: 2 });

const lines = readline.createInterface({ input: process.stdin });
const go: Array<() => void> = [];
lines.on('line', (line) => {
  if (line === 'go') go.shift()?.();
});

let runs = 0;
const receiver = createReceiver(petstore, {
  secret: SECRET,
  store: postgresStore(pool, { schema }),
  transactional: true,
  handlers: {
    'pet.adopted': async (event) => {
      if (++runs === 1) {
        process.stdout.write('HANDLER_STARTED\n');
        await new Promise<void>((resolve) => go.push(resolve));
      }
      await event.tx.query(`INSERT INTO "${schema}".adoptions (pet, event) VALUES ($1, $2)`, [
        event.data.petId,
        event.id,
      ]);
    },
  },
});

const server = http.createServer(receiver.node());
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${(server.address() as AddressInfo).port}\n`);
});
