/**
 * send: the happy path (a signed Petstore delivery the contract's own scheme verifies), a payload that
 * does not match the contract (exit 2 with the pointer), bad arguments (one line each, non-zero exit),
 * and the CLI end to end in a child process.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../generator/parse/index.js';
import { sendCommand } from '../../generator/tools/send.js';
import { createSignatureScheme } from '../../runtime/signing/resolve.js';
import { closedPort, memoryIo, PETSTORE, repoRoot, startRecorder } from './helpers.js';

const run = promisify(execFile);
const SECRET = 'petstore-send-secret';
const dir = mkdtempSync(path.join(tmpdir(), 'gw-send-'));
let ok: Awaited<ReturnType<typeof startRecorder>>;
let failing: Awaited<ReturnType<typeof startRecorder>>;

beforeAll(async () => {
  ok = await startRecorder(200, JSON.stringify({ status: 'processed', note: 'x'.repeat(2000) }));
  failing = await startRecorder(503, '{"error":"down"}');
});
afterAll(async () => {
  await ok.close();
  await failing.close();
  rmSync(dir, { recursive: true, force: true });
});

function oneLine(text: string): string {
  const lines = text.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0] ?? '';
}

describe('send', () => {
  it('sends a delivery the contract scheme verifies, with the envelope and the first example', async () => {
    const io = memoryIo();
    const code = await sendCommand(
      [PETSTORE, 'pet.adopted', '--url', `${ok.url}/hooks`, '--secret', SECRET],
      io,
    );
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    const request = ok.requests.at(-1);
    if (!request) throw new Error('no request');
    const model = await loadContract(PETSTORE);
    const scheme = createSignatureScheme(model.signature, { secret: SECRET });
    const verified = await scheme.verify({ headers: request.headers, body: request.body });
    const body = JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
    expect(verified.id).toBe(body.id);
    expect(body).toMatchObject({
      event: 'pet.adopted',
      apiVersion: '2024-06-01',
      data: model.events.find((e) => e.name === 'pet.adopted')?.examples[0],
    });
    expect(Object.keys(body)).toEqual(['id', 'event', 'timestamp', 'apiVersion', 'data']);
    expect(io.out()).toContain(`→ POST ${ok.url}/hooks pet.adopted ${String(body.id)}`);
    expect(io.out()).toContain('payload: example 1; signed with hmac-sha256 (X-Webhook-Signature)');
    expect(io.out()).toMatch(/← 200 OK in \d/);
    // The response is shortened for people.
    expect(io.out()).toMatch(/… \(\d+ more characters\)/);
  });

  it('synthesises a payload when the event has no example, and takes --data and --id', async () => {
    // The fixture's stock.low has no example (Petstore's examples may grow over time).
    const standard = path.join(repoRoot, 'test/tools/fixtures/standard.openapi.yaml');
    const whsec = `whsec_${Buffer.from('send-test-standard-secret-32byte').toString('base64')}`;
    const io = memoryIo();
    expect(await sendCommand([standard, 'stock.low', '--url', ok.url, '--secret', whsec, '--json'], io)).toBe(
      0,
    );
    expect((io.jsonLines()[0] as { payloadSource: string }).payloadSource).toBe(
      'synthesised from the schema',
    );

    const data = path.join(dir, 'status.json');
    writeFileSync(
      data,
      JSON.stringify({
        petId: 7,
        previousStatus: 'available',
        status: 'pending',
        changedAt: '2024-06-01T10:00:00Z',
      }),
    );
    const io2 = memoryIo();
    expect(
      await sendCommand(
        [
          PETSTORE,
          'pet.status_changed',
          '--url',
          ok.url,
          '--secret',
          SECRET,
          '--data',
          data,
          '--id',
          'evt_fixed',
          '--json',
        ],
        io2,
      ),
    ).toBe(0);
    const sent = JSON.parse(ok.requests.at(-1)?.body.toString('utf8') ?? '{}') as {
      id: string;
      data: { petId: number };
    };
    expect(sent).toMatchObject({ id: 'evt_fixed', data: { petId: 7 } });
  });

  it('exits 1 on a non-2xx answer', async () => {
    const io = memoryIo();
    expect(await sendCommand([PETSTORE, 'order.created', '--url', failing.url, '--secret', SECRET], io)).toBe(
      1,
    );
    expect(io.out()).toMatch(/← 503 Service Unavailable/);
    expect(io.out()).toContain('{"error":"down"}');
  });

  it('a payload that does not match the contract: exit 2 with the pointer, nothing sent', async () => {
    const before = ok.requests.length;
    const data = path.join(dir, 'bad.json');
    writeFileSync(
      data,
      JSON.stringify({
        petId: 0,
        previousStatus: 'available',
        status: 'sold',
        changedAt: '2024-06-01T10:00:00Z',
      }),
    );
    const io = memoryIo();
    expect(
      await sendCommand(
        [PETSTORE, 'pet.status_changed', '--url', ok.url, '--secret', SECRET, '--data', data],
        io,
      ),
    ).toBe(2);
    const line = oneLine(io.err());
    expect(line).toContain(
      `${data}#/petId: the payload does not match pet.status_changed: /petId must be >= 1`,
    );
    expect(line).toContain('/status must be one of "available", "pending", "adopted", "unavailable"');
    expect(line).toMatch(/\[invalid_argument\]$/);
    expect(ok.requests.length).toBe(before);
  });

  it('--json reports errors as JSON too', async () => {
    const io = memoryIo();
    expect(await sendCommand([PETSTORE, 'nope', '--url', ok.url, '--secret', SECRET, '--json'], io)).toBe(2);
    expect(io.jsonLines()[0]).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
  });

  it.each([
    [
      'unknown event',
      [PETSTORE, 'pet.adopt', '--url', 'http://127.0.0.1:1', '--secret', 's'],
      /unknown event "pet\.adopt" in Petstore Webhooks \(did you mean pet\.adopted\?\) \(expected one of order\.completed, order\.created, payment\.failed, payment\.succeeded, pet\.adopted, pet\.status_changed\)/,
    ],
    [
      'missing secret',
      [PETSTORE, 'pet.adopted', '--url', 'http://127.0.0.1:1'],
      /--secret is required: Petstore Webhooks signs deliveries with hmac-sha256 \(X-Webhook-Signature\)/,
    ],
    ['missing url', [PETSTORE, 'pet.adopted', '--secret', 's'], /--url is required/],
    [
      'bad url',
      [PETSTORE, 'pet.adopted', '--url', 'localhost:3000', '--secret', 's'],
      /--url "localhost:3000" is not an http\(s\) URL \(expected an absolute http\(s\) URL, e.g. http:\/\/localhost:3000\)/,
    ],
    ['unknown flag', [PETSTORE, 'pet.adopted', '--bogus'], /unknown option '--bogus'/],
    ['missing event', [PETSTORE], /expected <contract> <event>/],
    [
      'missing contract file',
      ['nope.yaml', 'pet.adopted', '--url', 'http://x', '--secret', 's'],
      /not found/,
    ],
  ])('%s → one line, exit 2', async (_name, argv, message) => {
    const io = memoryIo();
    expect(await sendCommand(argv, io)).toBe(2);
    expect(oneLine(io.err())).toMatch(message);
    expect(io.err()).toMatch(/^gen-webhooks send: /);
  });

  it('takes the secret from GEN_WEBHOOKS_SECRET', async () => {
    const io = memoryIo({ GEN_WEBHOOKS_SECRET: SECRET });
    expect(await sendCommand([PETSTORE, 'order.created', '--url', ok.url], io)).toBe(0);
  });

  it('an unreachable URL explains ECONNREFUSED, exit 2', async () => {
    const port = await closedPort();
    const io = memoryIo();
    expect(
      await sendCommand(
        [PETSTORE, 'pet.adopted', '--url', `http://127.0.0.1:${port}/hooks`, '--secret', SECRET],
        io,
      ),
    ).toBe(2);
    expect(oneLine(io.err())).toBe(
      `gen-webhooks send: connection refused by 127.0.0.1:${port} (ECONNREFUSED): nothing is listening there; is the app running on that port? [network_error]`,
    );
  });

  it('times out with an explanation', async () => {
    const { startServer } = await import('./helpers.js');
    const silent = await startServer(() => {});
    try {
      const io = memoryIo();
      expect(
        await sendCommand(
          [PETSTORE, 'pet.adopted', '--url', silent.url, '--secret', SECRET, '--timeout', '200ms'],
          io,
        ),
      ).toBe(2);
      expect(oneLine(io.err())).toMatch(
        /no complete response from 127\.0\.0\.1:\d+ within 200ms \(timeout\)/,
      );
    } finally {
      await silent.close();
    }
  });
});

describe('the CLI end to end', () => {
  const cli = (args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'generator/cli.ts', ...args], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: '1' },
    }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );

  it('gen-webhooks send … delivers and exits 0; a bad event exits 2 with one line', async () => {
    const before = ok.requests.length;
    const good = await cli([
      'send',
      'schemas/petstore.openapi.yaml',
      'order.completed',
      '--url',
      `${ok.url}/cli`,
      '--secret',
      SECRET,
      '--json',
    ]);
    expect(good.stderr).toBe('');
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ ok: true, event: 'order.completed', status: 200 });
    expect(ok.requests.length).toBe(before + 1);
    expect(ok.requests.at(-1)?.url).toBe('/cli');

    const bad = await cli([
      'send',
      'schemas/petstore.openapi.yaml',
      'order.lost',
      '--url',
      ok.url,
      '--secret',
      SECRET,
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('unknown event "order.lost"');
  });

  it('gen-webhooks send --help prints the usage', async () => {
    const help = await cli(['send', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      'Usage: gen-webhooks send <contract> <event> --url <url> --secret <secret>',
    );
  });
});
