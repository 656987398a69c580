/**
 * The tools on contracts other than Petstore (fixtures in ./fixtures): the defaults (Standard
 * Webhooks signature and envelope, checked against the `standardwebhooks` library), a GitHub-style
 * bare contract selected by header + `action`, and `listen` with several contracts at once.
 */
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListenRecord } from '../../generator/tools/listen.js';
import { listenCommand } from '../../generator/tools/listen-command.js';
import { sendCommand } from '../../generator/tools/send.js';
import { memoryIo, repoRoot, startRecorder } from './helpers.js';

const STANDARD = path.join(repoRoot, 'test/tools/fixtures/standard.openapi.yaml');
const REPO = path.join(repoRoot, 'test/tools/fixtures/repo-events.openapi.yaml');
const WHSEC = `whsec_${Buffer.from('tools-test-standard-secret-32byt').toString('base64')}`;

let recorder: Awaited<ReturnType<typeof startRecorder>>;
beforeAll(async () => {
  recorder = await startRecorder(204, '');
});
afterAll(async () => {
  await recorder.close();
});

async function withListen(
  args: string[],
  body: (url: string, records: () => ListenRecord[]) => Promise<void>,
): Promise<void> {
  const io = memoryIo();
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let ready: (url: string) => void = () => {};
  const listening = new Promise<string>((resolve) => {
    ready = resolve;
  });
  const done = listenCommand(['--port', '0', '--no-save', '--json', ...args], io, {
    onListening: ready,
    untilStopped: () => stopped,
  });
  const url = await Promise.race([
    listening,
    done.then((code) => Promise.reject(new Error(`listen exited ${code}: ${io.err()}`))),
  ]);
  try {
    await body(url, () =>
      (io.jsonLines() as Array<ListenRecord & { kind: string }>).filter((l) => l.kind === 'delivery'),
    );
  } finally {
    stop();
    expect(await done).toBe(0);
  }
}

describe('a contract on the defaults (Standard Webhooks)', () => {
  it('send signs so that the standardwebhooks library verifies it; the body is the standard envelope', async () => {
    const io = memoryIo();
    expect(await sendCommand([STANDARD, 'stock.low', '--url', recorder.url, '--secret', WHSEC], io)).toBe(0);
    const request = recorder.requests.at(-1);
    if (!request) throw new Error('nothing received');
    const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
    const verified = new Webhook(WHSEC).verify(request.body.toString('utf8'), headers) as Record<
      string,
      unknown
    >;
    expect(verified).toMatchObject({ type: 'stock.low', id: headers['webhook-id'] });
    expect(Object.keys(verified)).toEqual(['id', 'type', 'timestamp', 'data']);
    expect(io.out()).toContain('payload: synthesised from the schema; signed with standard-webhooks');
  });

  it('a secret in the wrong format is one line, exit 2', async () => {
    const io = memoryIo();
    expect(await sendCommand([STANDARD, 'stock.low', '--url', recorder.url, '--secret', 'plain'], io)).toBe(
      2,
    );
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.err()).toMatch(/Secret must be "whsec_<base64>".*\[invalid_secret\].*\[invalid_argument\]$/m);
  });

  it('listen without a contract verifies Standard Webhooks deliveries; with the contract it also validates', async () => {
    await withListen(['--secret', WHSEC], async (url, records) => {
      expect(
        await sendCommand([STANDARD, 'stock.restocked', '--url', url, '--secret', WHSEC], memoryIo()),
      ).toBe(0);
      expect(records()[0]?.inspection).toMatchObject({ ok: true, event: 'stock.restocked' });
      expect(records()[0]?.inspection.checks.find((c) => c.name === 'payload')).toMatchObject({
        skipped: true,
      });
    });
    await withListen([STANDARD, '--secret', WHSEC], async (url, records) => {
      expect(
        await sendCommand([STANDARD, 'stock.restocked', '--url', url, '--secret', WHSEC], memoryIo()),
      ).toBe(0);
      expect(records()[0]?.inspection.checks.find((c) => c.name === 'payload')).toMatchObject({
        ok: true,
        detail: 'matches the stock.restocked schema',
      });
    });
  });
});

describe('a GitHub-style contract (bare body, X-Event header + action)', () => {
  it('send sets the selector header and the action of the event it synthesises', async () => {
    const io = memoryIo();
    expect(
      await sendCommand(
        [REPO, 'issue.closed', '--url', recorder.url, '--secret', 'repo-secret', '--json'],
        io,
      ),
    ).toBe(0);
    const request = recorder.requests.at(-1);
    expect(request?.headers['x-event']).toBe('issues');
    expect(JSON.parse(request?.body.toString('utf8') ?? '{}')).toMatchObject({ action: 'closed' });
    expect(request?.headers['x-hub-signature-256']).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('--data whose action names another event is refused before sending', async () => {
    const { writeFileSync, mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-contracts-'));
    try {
      const data = path.join(dir, 'closed.json');
      writeFileSync(data, '{"action":"closed","number":5}');
      const io = memoryIo();
      expect(
        await sendCommand([REPO, 'issue.opened', '--url', recorder.url, '--secret', 's', '--data', data], io),
      ).toBe(2);
      expect(io.err()).toContain(
        'a receiver of Repo Events would not recognise this delivery as issue.opened: it selects issue.closed',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('listen with several contracts picks the one each delivery belongs to', async () => {
    await withListen([STANDARD, REPO, '--secret', 'repo-secret', '--secret', WHSEC], async (url, records) => {
      expect(
        await sendCommand([REPO, 'issue.opened', '--url', url, '--secret', 'repo-secret'], memoryIo()),
      ).toBe(0);
      expect(await sendCommand([STANDARD, 'stock.low', '--url', url, '--secret', WHSEC], memoryIo())).toBe(0);
      expect(records().map((r) => [r.inspection.contract, r.inspection.event, r.status])).toEqual([
        ['repo-events-openapi', 'issue.opened', 200],
        ['standard-openapi', 'stock.low', 200],
      ]);
    });
  });

  it('a secret that fits no contract scheme: the delivery fails its signature check, saying why', async () => {
    await withListen([STANDARD, REPO, '--secret', 'repo-secret'], async (url, records) => {
      expect(await sendCommand([STANDARD, 'stock.low', '--url', url, '--secret', WHSEC], memoryIo())).toBe(1);
      const record = records()[0];
      expect(record?.inspection).toMatchObject({ ok: false, status: 401, contract: 'standard-openapi' });
      expect(record?.inspection.checks[0]?.detail).toMatch(
        /^no --secret fits standard-webhooks: Secret must be "whsec_/,
      );
    });
    const io = memoryIo();
    expect(
      await listenCommand([STANDARD, '--port', '0', '--no-save', '--secret', 'plain'], io, {
        untilStopped: async () => {},
      }),
    ).toBe(2);
    expect(io.err()).toMatch(
      /^gen-webhooks listen: no --secret fits standard-webhooks: .*\[invalid_argument\]\n$/,
    );
  });
});
