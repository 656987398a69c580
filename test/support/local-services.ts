/**
 * The services the suite can use (PostgreSQL, Redis, RabbitMQ, NATS) at their default local
 * addresses. When a variable is unset and the default answers a protocol-level probe, the suite uses
 * the default, so a fresh clone on a machine with the usual servers runs everything it can.
 */
import net from 'node:net';
import pg from 'pg';

export interface LocalService {
  readonly env: string;
  readonly service: string;
  readonly url: string;
  /** Resolves when something speaking the service's protocol answers at `url`; rejects otherwise. */
  readonly probe: (url: string, timeoutMs: number) => Promise<void>;
}

export const PROBE_TIMEOUT_MS = 1_000;

/**
 * Connects, writes `hello` (if any) and resolves once the first bytes pass `answers`. A TCP accept
 * alone is not enough: another program on the port would make every test fail instead of skip.
 */
export function probeSocket(
  url: string,
  defaultPort: number,
  hello: Uint8Array | string | undefined,
  answers: (first: Buffer) => boolean,
  timeoutMs: number,
): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname || '127.0.0.1', port: Number(port || defaultPort) });
    const fail = (why: string) => {
      socket.destroy();
      reject(new Error(why));
    };
    socket.setTimeout(timeoutMs, () => fail(`no answer within ${timeoutMs} ms`));
    socket.once('error', (error) => fail(error.message));
    socket.once('connect', () => {
      if (hello !== undefined) socket.write(hello);
    });
    socket.once('data', (first) => {
      socket.destroy();
      if (answers(first)) resolve();
      else reject(new Error(`unexpected answer ${JSON.stringify(first.subarray(0, 40).toString('latin1'))}`));
    });
  });
}

async function probePostgres(url: string, timeoutMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  let timer: NodeJS.Timeout | undefined;
  // connectionTimeoutMillis does not bound a server that accepts and then says nothing useful.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect().then(() => client.query('SELECT 1')), deadline]);
  } finally {
    clearTimeout(timer);
    (client as unknown as { connection?: { stream?: net.Socket } }).connection?.stream?.destroy();
    void client.end().catch(() => {});
  }
}

export const LOCAL_SERVICES: readonly LocalService[] = [
  {
    env: 'DATABASE_URL',
    service: 'PostgreSQL',
    url: 'postgres://postgres@127.0.0.1:5432/test',
    probe: probePostgres,
  },
  {
    env: 'REDIS_URL',
    service: 'Redis',
    url: 'redis://127.0.0.1:6379',
    // "-NOAUTH" also answers, but a server wanting a password is not usable without one.
    probe: (url, ms) =>
      probeSocket(url, 6379, 'PING\r\n', (b) => b.toString('latin1').startsWith('+PONG'), ms),
  },
  {
    env: 'AMQP_URL',
    service: 'RabbitMQ',
    url: 'amqp://guest:guest@127.0.0.1:5672',
    // The AMQP 0-9-1 protocol header; a broker answers with a method frame (type 1), Connection.Start.
    probe: (url, ms) =>
      probeSocket(url, 5672, Buffer.from('AMQP\x00\x00\x09\x01', 'latin1'), (b) => b[0] === 1, ms),
  },
  {
    env: 'NATS_URL',
    service: 'NATS',
    url: 'nats://127.0.0.1:4222',
    // A NATS server speaks first: INFO {...}.
    probe: (url, ms) =>
      probeSocket(url, 4222, undefined, (b) => b.toString('latin1').startsWith('INFO '), ms),
  },
];

export interface DefaultsOutcome {
  /** Variables that were unset and are now the local default. */
  readonly used: readonly { env: string; url: string }[];
  /** Variables that stay unset, with why the default did not answer. */
  readonly absent: readonly { env: string; service: string; url: string; why: string }[];
}

/** Sets each unset variable of `services` in `env` to its default when the default answers. */
export async function useLocalDefaults(
  env: Record<string, string | undefined>,
  services: readonly LocalService[] = LOCAL_SERVICES,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<DefaultsOutcome> {
  const unset = services.filter((s) => env[s.env] === undefined || env[s.env] === '');
  const results = await Promise.allSettled(unset.map((s) => s.probe(s.url, timeoutMs)));
  const used: { env: string; url: string }[] = [];
  const absent: { env: string; service: string; url: string; why: string }[] = [];
  unset.forEach((s, i) => {
    const result = results[i]!;
    if (result.status === 'fulfilled') {
      env[s.env] = s.url;
      used.push({ env: s.env, url: s.url });
    } else {
      const why = result.reason instanceof Error ? result.reason.message : String(result.reason);
      absent.push({ env: s.env, service: s.service, url: s.url, why });
    }
  });
  return { used, absent };
}

/** The lines globalSetup prints: which defaults it used and which services it did not find. */
export function formatDefaults(outcome: DefaultsOutcome): string[] {
  const lines: string[] = [];
  for (const u of outcome.used) lines.push(`test services: ${u.env} unset, using ${u.url} (it answered)`);
  for (const a of outcome.absent) {
    lines.push(`test services: ${a.env} unset and no ${a.service} at ${a.url} (${a.why}); its tests skip`);
  }
  return lines;
}
