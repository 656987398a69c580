/**
 * One command: `npx tsx examples/petstore-provider/start.ts`. Generates the Petstore module from
 * schemas/ (if it changed), starts the provider and a customer app on 127.0.0.1, registers the
 * customer's endpoint through the registration API as tenant `acme`, and prints the portal link.
 *
 * Environment: PORT (provider, default 3000), CUSTOMER_PORT (default 3001), PETSTORE_DB (SQLite file,
 * default in memory), PETSTORE_PORTAL_KEY (default: random per run). 0 picks a free port. With
 * amqplib and nats installed, customers may also register amqp:// and nats:// destinations.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from '../../generator/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const generation = { inputs: ['schemas'], out: 'generated', cwd: repoRoot } as const;
if ((await generate({ ...generation, check: true })).changed.length > 0) await generate(generation);

// Imported after generating: both import the generated module.
const { startProvider } = await import('./provider.js');
const { startCustomer } = await import('./customer.js');

/** Broker destinations for the drivers that are installed (both are optional). */
async function brokerDestinations() {
  const { amqpDestination, natsDestination } = await import('@gen-webhooks/runtime');
  const found = [];
  const amqplib = await import('amqplib').catch(() => undefined);
  if (amqplib) found.push(amqpDestination(amqplib.default));
  const nats = await import('nats').catch(() => undefined);
  if (nats) found.push(natsDestination(nats));
  return found;
}
const destinations = await brokerDestinations();

const apiKeys = { 'acme-demo-key': 'acme', 'bravo-demo-key': 'bravo' };
const port = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);

const provider = await startProvider({
  port: port('PORT', 3000),
  apiKeys,
  portalKey: process.env.PETSTORE_PORTAL_KEY ?? randomBytes(32).toString('base64url'),
  ...(process.env.PETSTORE_DB ? { database: process.env.PETSTORE_DB } : {}),
  // The customer app below listens on http://127.0.0.1: allowed for this local demo only.
  allowLocalHttp: true,
  destinations,
});
const customer = await startCustomer({ port: port('CUSTOMER_PORT', 3001) });

const registered = await fetch(`${provider.url}/webhooks`, {
  method: 'POST',
  headers: { authorization: 'Bearer acme-demo-key', 'content-type': 'application/json' },
  body: JSON.stringify({ url: customer.webhookUrl, events: ['*'], description: 'Customer app (demo)' }),
});
const endpoint = (await registered.json()) as { id: string; secret: string };
if (registered.status !== 201) throw new Error(`registration failed: ${JSON.stringify(endpoint)}`);
customer.useSecret(endpoint.secret);

console.log(`Petstore provider  ${provider.url}`);
console.log(`Customer app       ${customer.url} (endpoint ${endpoint.id} of tenant acme)`);
console.log(`Portal (acme)      ${provider.portalLink('acme')}`);
console.log(
  `Destinations       https:${destinations
    .flatMap((d) => d.schemes)
    .map((scheme) => `, ${scheme}`)
    .join('')}`,
);
console.log(`API keys           acme-demo-key (acme), bravo-demo-key (bravo)`);
console.log('');
console.log(
  'WARNING: http://127.0.0.1 endpoints are allowed for this demo; production endpoints are HTTPS only.',
);
console.log('Try:');
console.log(
  `  curl -s -X POST -H 'authorization: Bearer acme-demo-key' ${provider.url}/pets/1/adopt -d '{}'`,
);
console.log(
  `  curl -s -X POST ${customer.url}/fail      # then adopt pet 2 and watch the retries in the portal`,
);
console.log(`  curl -s -H 'authorization: Bearer acme-demo-key' ${provider.url}/webhooks/dead-letters`);
console.log('ready');

const stop = async () => {
  await provider.close();
  await customer.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
