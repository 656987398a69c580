/**
 * A broker consumer in its own process, for the SIGKILL test. Env: ENGINE=amqp|jetstream, NAME (queue,
 * or stream with durable consumer `workers`), DATABASE_URL, TABLE (idempotency), EFFECTS (business
 * table), HANG_ON (a petId whose handler writes its effect in the store's transaction, prints
 * `HANDLER_STARTED` and never finishes). Prints `READY` once consuming.
 */
import amqp from 'amqplib';
import { connect } from 'nats';
import pg from 'pg';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import { postgresStore } from '../../runtime/stores/postgres.js';
import { petstore, SECRET } from '../receiver/fixtures.js';

const env = (name: string): string => process.env[name] ?? '';

async function main(): Promise<void> {
  const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 8 });
  const effects = env('EFFECTS');
  const receiver = createReceiver(petstore, {
    secret: SECRET,
    store: postgresStore(pool, { table: env('TABLE') }),
    transactional: true,
    leaseMs: 2000,
    handlers: {
      'pet.adopted': async (event) => {
        const tx = event.tx as pg.PoolClient;
        await tx.query(`INSERT INTO ${effects} (event, pet) VALUES ($1, $2)`, [event.id, event.data.petId]);
        if (event.data.petId === env('HANG_ON')) {
          process.stdout.write('HANDLER_STARTED\n');
          await new Promise<never>(() => {});
        }
      },
    },
  });
  if (env('ENGINE') === 'amqp') {
    const connection = await amqp.connect(env('AMQP_URL') || 'amqp://guest:guest@127.0.0.1:5672');
    await receiver.consumeAmqp(await connection.createChannel(), env('NAME'), { prefetch: 4 });
  } else {
    const nc = await connect({ servers: env('NATS_URL') || 'nats://127.0.0.1:4222' });
    const consumer = await nc.jetstream().consumers.get(env('NAME'), 'workers');
    await receiver.consumeJetStream(consumer, { prefetch: 4 });
  }
  process.stdout.write('READY\n');
}

void main();
