/**
 * `gen-webhooks mock-receiver` as a command: flags, the report on stop (in-process and, for the real
 * signal path, a spawned CLI stopped with SIGTERM), and one-line errors for bad flags and busy ports.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { mockReceiverCommand } from '../../generator/tools/mock-receiver-command.js';
import { memoryIo, repoRoot } from './helpers.js';

async function runInProcess(args: string[], drive: (url: string) => Promise<void>) {
  const io = memoryIo();
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let ready: (url: string) => void = () => {};
  const listening = new Promise<string>((resolve) => {
    ready = resolve;
  });
  const done = mockReceiverCommand(['--port', '0', ...args], io, {
    onListening: ready,
    untilStopped: () => stopped,
  });
  const url = await Promise.race([
    listening,
    done.then((code) => Promise.reject(new Error(`exited ${code}: ${io.err()}`))),
  ]);
  await drive(url);
  stop();
  return { code: await done, io };
}

const post = (url: string, id: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'webhook-id': id, 'content-type': 'application/json' },
    body: '{}',
  }).catch(() => undefined);

describe('mock-receiver command', () => {
  it('applies --fail-first/--status/--retry-after and prints the report when stopped', async () => {
    const statuses: Array<number | undefined> = [];
    const { code, io } = await runInProcess(
      ['--fail-first', '2', '--status', '429', '--retry-after', '3'],
      async (url) => {
        for (let i = 0; i < 3; i += 1) {
          const res = await post(url, 'msg_cmd');
          statuses.push(res?.status);
          if (res?.status === 429) expect(res.headers.get('retry-after')).toBe('3');
        }
      },
    );
    expect(code).toBe(0);
    expect(statuses).toEqual([429, 429, 200]);
    expect(io.err()).toMatch(/mock-receiver listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(io.out()).toContain(
      'mock-receiver report: 3 request(s) for 1 event(s) — 1 ok, 2 failed, 0 dropped, 0 abandoned',
    );
    expect(io.out()).toMatch(/msg_cmd: 3 attempt\(s\), delivered; 429 → 429 → 200; gaps \d+ms, \d+ms/);
  });

  it('--json: a listening line, one line per attempt, the report as JSON', async () => {
    const { code, io } = await runInProcess(
      ['--json', '--drop-response-rate', '1', '--seed', '7'],
      async (url) => {
        await post(url, 'msg_drop');
      },
    );
    expect(code).toBe(0);
    const lines = io.jsonLines() as Array<{
      kind: string;
      outcome?: string;
      seed?: number;
      outcomes?: object;
    }>;
    expect(lines.map((l) => l.kind)).toEqual(['listening', 'attempt', 'report']);
    expect(lines[1]?.outcome).toBe('dropped');
    expect(lines[2]).toMatchObject({ seed: 7, outcomes: { dropped: 1 } });
  });

  it.each([
    [['--fail-rate', '2'], /--fail-rate "2" is not a rate/],
    [['--delay', 'soon'], /--delay "soon" is not a duration/],
    [['--status', '700'], /--status "700" is out of range/],
    [['--bogus'], /unknown option '--bogus'/],
    [['extra'], /unexpected argument "extra"/],
  ])('%j → one line, exit 2', async (args, message) => {
    const io = memoryIo();
    expect(await mockReceiverCommand(args, io, { untilStopped: async () => {} })).toBe(2);
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.err()).toMatch(message);
  });

  it('a busy port is explained', async () => {
    await runInProcess([], async (url) => {
      const io = memoryIo();
      expect(
        await mockReceiverCommand(['--port', new URL(url).port], io, { untilStopped: async () => {} }),
      ).toBe(2);
      expect(io.err()).toMatch(
        /port \d+ is already in use \(EADDRINUSE\) \(expected a free port \(--port 0 picks one\)\)/,
      );
    });
  });

  it('the CLI prints the report on SIGTERM and exits 0', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'generator/cli.ts', 'mock-receiver', '--port', '0', '--json', '--fail-first', '1'],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let stdout = '';
      child.stdout.setEncoding('utf8');
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          stdout += chunk;
          const match = /"kind":"listening","url":"([^"]+)"/.exec(stdout);
          if (match?.[1]) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited early with ${code}`)));
      });
      expect((await post(url, 'msg_sig'))?.status).toBe(500);
      expect((await post(url, 'msg_sig'))?.status).toBe(200);
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
      const report = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { kind: string; events?: Array<{ id: string; attempts: number }> })
        .find((line) => line.kind === 'report');
      expect(report?.events).toEqual([expect.objectContaining({ id: 'msg_sig', attempts: 2 })]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
