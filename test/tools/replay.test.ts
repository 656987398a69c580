/**
 * replay against real receivers: the runtime's own (createReceiver + SQLite store) must come out as
 * "1 processed + 9 duplicates", sequentially and with 10 in flight; a naive receiver that processes
 * every delivery and says nothing about duplicates must be reported, with exit code 1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../generator/parse/index.js';
import { replayCommand } from '../../generator/tools/replay.js';
import { createReceiver } from '../../runtime/receive/index.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import {
  closedPort,
  contractFromModel,
  memoryIo,
  PETSTORE,
  startServer,
  type TestServer,
} from './helpers.js';

const SECRET = 'petstore-replay-secret';
const dir = mkdtempSync(path.join(tmpdir(), 'gw-replay-'));
const effects: string[] = [];
let runtimeReceiver: TestServer;
let naiveEffects = 0;
let naive: TestServer;

beforeAll(async () => {
  const model = await loadContract(PETSTORE);
  const store = sqliteStore(path.join(dir, 'idempotency.db'));
  const receiver = createReceiver(contractFromModel(model), {
    secret: SECRET,
    store,
    handlers: {
      'pet.adopted': async (event: { readonly id: string }) => {
        // A little work, so concurrent duplicates really overlap with the first attempt.
        await new Promise((resolve) => setTimeout(resolve, 20));
        effects.push(event.id);
      },
    },
  });
  runtimeReceiver = await startServer(receiver.node());
  naive = await startServer((req, res) => {
    req.resume();
    req.on('end', () => {
      naiveEffects += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
});

afterAll(async () => {
  await runtimeReceiver.close();
  await naive.close();
  rmSync(dir, { recursive: true, force: true });
});

interface ReplayJson {
  ok: boolean;
  summary: string;
  id: string;
  processed: number;
  duplicates: number;
  inProgress: number;
  attempts: Array<{ status?: number; outcome: string }>;
}

async function replay(
  url: string,
  extra: string[],
): Promise<{ code: number; result: ReplayJson; io: ReturnType<typeof memoryIo> }> {
  const io = memoryIo();
  const code = await replayCommand(
    [PETSTORE, 'pet.adopted', '--url', url, '--secret', SECRET, '--json', ...extra],
    io,
  );
  const [result] = io.jsonLines() as ReplayJson[];
  if (!result) throw new Error(`no JSON output; stderr: ${io.err()}`);
  return { code, result, io };
}

describe('replay against the runtime receiver (createReceiver + sqliteStore)', () => {
  it('sequential: 1 processed + 9 duplicates, handler ran once', async () => {
    const { code, result } = await replay(runtimeReceiver.url, ['--times', '10']);
    expect(result.summary).toBe('idempotent: 1 processed + 9 duplicates');
    expect(code).toBe(0);
    expect(result.attempts.every((a) => a.status === 200)).toBe(true);
    expect(effects.filter((id) => id === result.id)).toHaveLength(1);
  });

  it('--concurrency 10: 1 processed + 9 duplicates, handler ran once', async () => {
    const { code, result } = await replay(runtimeReceiver.url, ['--times', '10', '--concurrency', '10']);
    expect(code).toBe(0);
    expect(result.ok).toBe(true);
    expect(result.processed).toBe(1);
    expect(result.duplicates).toBe(9);
    expect(result.summary).toMatch(/^idempotent: 1 processed \+ 9 duplicates/);
    expect(effects.filter((id) => id === result.id)).toHaveLength(1);
  });

  it('--fixed-timestamp sends byte-identical requests with the same outcome', async () => {
    const { code, result } = await replay(runtimeReceiver.url, ['--times', '5', '--fixed-timestamp']);
    expect(code).toBe(0);
    expect(result).toMatchObject({ processed: 1, duplicates: 4 });
  });

  it('prints a readable report without --json', async () => {
    const io = memoryIo();
    const code = await replayCommand(
      [PETSTORE, 'pet.adopted', '--url', runtimeReceiver.url, '--secret', SECRET, '--times', '3'],
      io,
    );
    expect(code).toBe(0);
    expect(io.out()).toContain(
      '3 attempts, one after another; re-signed with a fresh timestamp each time, same id and body',
    );
    expect(io.out()).toMatch(/#1 +200 in .+ processed/);
    expect(io.out()).toMatch(/#3 +200 in .+ duplicate \(body\)/);
    expect(io.out()).toContain('✔ idempotent: 1 processed + 2 duplicates');
  });

  it('a wrong secret: every attempt rejected, exit 1', async () => {
    const io = memoryIo();
    const code = await replayCommand(
      [PETSTORE, 'pet.adopted', '--url', runtimeReceiver.url, '--secret', 'wrong', '--times', '2', '--json'],
      io,
    );
    expect(code).toBe(1);
    expect((io.jsonLines()[0] as ReplayJson).summary).toMatch(/^all 2 attempts failed \(401×2\)/);
  });
});

describe('replay against a naive receiver', () => {
  it('reports that it may not be idempotent and exits 1', async () => {
    const before = naiveEffects;
    const { code, result, io } = await replay(naive.url, ['--times', '10']);
    expect(code).toBe(1);
    expect(result.ok).toBe(false);
    expect(result.processed).toBe(10);
    expect(result.summary).toMatch(/receiver may not be idempotent/);
    expect(naiveEffects - before).toBe(10);
    expect(io.err()).toBe('');
  });

  it('concurrently too', async () => {
    const { code, result } = await replay(naive.url, ['--times', '10', '--concurrency', '10']);
    expect(code).toBe(1);
    expect(result.summary).toMatch(/receiver may not be idempotent/);
  });
});

describe('replay argument errors', () => {
  it('needs <contract> <event> or --from', async () => {
    const io = memoryIo();
    expect(await replayCommand(['--url', 'http://127.0.0.1:1', '--secret', 's'], io)).toBe(2);
    expect(io.err()).toMatch(/^gen-webhooks replay: expected <contract> <event> \(or --from capture.json\)/);
    expect(io.err().trim().split('\n')).toHaveLength(1);
  });

  it('an unreachable URL is explained, exit 2', async () => {
    const port = await closedPort();
    const io = memoryIo();
    const code = await replayCommand(
      [PETSTORE, 'pet.adopted', '--url', `http://127.0.0.1:${port}`, '--secret', SECRET, '--times', '3'],
      io,
    );
    expect(code).toBe(2);
    expect(io.err().trim()).toBe(
      `gen-webhooks replay: connection refused by 127.0.0.1:${port} (ECONNREFUSED): nothing is listening there; is the app running on that port? [network_error]`,
    );
  });

  it('--from without the capture file, or with a contract but no --resign', async () => {
    const io = memoryIo();
    expect(
      await replayCommand(['--from', path.join(dir, 'missing.json'), '--url', 'http://127.0.0.1:1'], io),
    ).toBe(2);
    expect(io.err()).toContain('cannot read capture file');
    const io2 = memoryIo();
    expect(
      await replayCommand(['--resign', PETSTORE, 'pet.adopted', '--url', 'http://127.0.0.1:1'], io2),
    ).toBe(2);
    expect(io2.err()).toContain('--resign only applies to --from');
  });

  it('rejects --times 0', async () => {
    const io = memoryIo();
    expect(await replayCommand([PETSTORE, 'pet.adopted', '--url', 'http://x', '--times', '0'], io)).toBe(2);
    expect(io.err()).toContain('--times "0" is out of range');
  });
});
