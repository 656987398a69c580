/**
 * The load generator of bench:receive, run as a child process (so the server under test has its own
 * process and its CPU can be measured): autocannon against a URL, then its summary as one JSON line.
 *
 *   node --import tsx bench/lib/load-generator.ts <url> <spec.json>
 *
 * Specs: `petstore` — every request a distinct Standard Webhooks delivery, signed before the clock
 * starts (a pool for BENCH_POOL_RATE req/s over the run; beyond it signed on demand, never reused);
 * `github` — one real payload with its `X-Hub-Signature-256`, and a distinct `X-GitHub-Delivery` per
 * request (GitHub signs the body only, so the signature stays valid and every request is a new event
 * for a deduplicating receiver).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { standardWebhookHeaders } from '../../runtime/signing/standard-webhooks.js';
import { SECRET } from '../../test/receiver/fixtures.js';

export type LoadSpec =
  | { readonly kind: 'petstore' }
  | { readonly kind: 'github'; readonly event: string; readonly body: string; readonly signature: string };

export interface LoadSummary {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly ok: number;
  readonly non2xx: number;
  readonly errors: number;
}

interface Delivery {
  headers: Record<string, string>;
  body: string;
}

const seconds = Number(process.env['BENCH_SECONDS'] ?? 5);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const poolRate = Number(process.env['BENCH_POOL_RATE'] ?? 40_000);

function petstoreDeliveries(): () => Delivery {
  const prefix = `${process.pid}_${Date.now()}`;
  let sequence = 0;
  const sign = (): Delivery => {
    const id = `msg_${prefix}_${++sequence}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({
      id,
      type: 'pet.adopted',
      timestamp: new Date(timestamp * 1000).toISOString(),
      data: { petId: `pet_${sequence}`, adopter: { name: 'Ada Lovelace', email: 'ada@example.com' } },
    });
    return {
      body,
      headers: {
        'content-type': 'application/json',
        ...standardWebhookHeaders({ id, timestamp, body, secret: SECRET }),
      },
    };
  };
  // Signed before the clock starts, so the load generator spends its CPU on sending.
  const pool: (Delivery | undefined)[] = Array.from(
    { length: Math.min(1_000_000, seconds * poolRate) },
    sign,
  );
  let next = 0;
  let late = 0;
  process.on('exit', () => {
    if (late > 0)
      console.error(`note: ${late} deliveries signed during the run (pool ${pool.length} ran out)`);
  });
  return () => {
    let d = pool[next];
    if (d === undefined) {
      d = sign();
      late++;
    } else pool[next] = undefined;
    next++;
    return d;
  };
}

function githubDeliveries(spec: Extract<LoadSpec, { kind: 'github' }>): () => Delivery {
  const prefix = `${process.pid}-${Date.now().toString(36)}-`;
  let sequence = 0;
  return () => ({
    body: spec.body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': spec.event,
      'x-hub-signature-256': spec.signature,
      'x-github-delivery': prefix + (++sequence).toString(36),
      'user-agent': 'GitHub-Hookshot/bench',
    },
  });
}

async function main(url: string, specFile: string): Promise<void> {
  const spec = JSON.parse(fs.readFileSync(specFile, 'utf8')) as LoadSpec;
  const next = spec.kind === 'petstore' ? petstoreDeliveries() : githubDeliveries(spec);
  // autocannon ships no types; load it through require and describe the part used here.
  const autocannon = createRequire(import.meta.url)('autocannon') as (options: object) => Promise<{
    requests: { average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
    '2xx': number;
  }>;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        setupRequest: (request: Record<string, unknown>) => {
          const d = next();
          return { ...request, method: 'POST', headers: d.headers, body: d.body };
        },
      },
    ],
  });
  const summary: LoadSummary = {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main(process.argv[2] ?? '', process.argv[3] ?? '');
}
