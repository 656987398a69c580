/**
 * listen end to end, in-process: a valid Petstore delivery (built by `send`) is accepted, saved and
 * forwarded byte for byte; a tampered one is rejected with 401 and not forwarded; a stale one gets
 * 400; the saved capture replays (`replay --from`) byte-identical.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadContract } from '../../generator/parse/index.js';
import { type CapturedDelivery, captureBody } from '../../generator/tools/capture.js';
import { createScheme, planDelivery, signDelivery } from '../../generator/tools/delivery.js';
import type { ListenRecord } from '../../generator/tools/listen.js';
import { listenCommand } from '../../generator/tools/listen-command.js';
import { replayCommand } from '../../generator/tools/replay.js';
import { sendCommand } from '../../generator/tools/send.js';
import { memoryIo, PETSTORE, type RecordedRequest, startRecorder } from './helpers.js';

const SECRET = 'petstore-listen-secret';
const dir = mkdtempSync(path.join(tmpdir(), 'gw-listen-'));
const saveDir = path.join(dir, 'deliveries');

interface Running {
  url: string;
  io: ReturnType<typeof memoryIo>;
  stop(): Promise<number>;
}

/** Runs `listen` in-process until `stop()`. */
async function listen(args: string[], now?: () => number): Promise<Running> {
  const io = memoryIo({}, now);
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let ready: (url: string) => void = () => {};
  const listening = new Promise<string>((resolve) => {
    ready = resolve;
  });
  const done = listenCommand(['--port', '0', ...args], io, {
    onListening: ready,
    untilStopped: () => stopped,
  });
  const url = await Promise.race([
    listening,
    done.then((code) => Promise.reject(new Error(`listen exited ${code}: ${io.err()}`))),
  ]);
  return {
    url,
    io,
    stop: () => {
      stop();
      return done;
    },
  };
}

let app: Awaited<ReturnType<typeof startRecorder>>;
let target: Awaited<ReturnType<typeof startRecorder>>;
let listener: Running;

beforeAll(async () => {
  app = await startRecorder(202, '{"app":"accepted"}');
  target = await startRecorder(200);
  listener = await listen([
    PETSTORE,
    '--secret',
    SECRET,
    '--save-dir',
    saveDir,
    '--forward',
    `${app.url}/hooks?x=1`,
    '--json',
  ]);
});

afterAll(async () => {
  await listener.stop();
  await app.close();
  await target.close();
  rmSync(dir, { recursive: true, force: true });
});

function deliveries(io: ReturnType<typeof memoryIo>): ListenRecord[] {
  return (io.jsonLines() as Array<ListenRecord & { kind: string }>).filter(
    (line) => line.kind === 'delivery',
  );
}

function records(): ListenRecord[] {
  return deliveries(listener.io);
}

function pairs(raw: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i] ?? '', raw[i + 1] ?? '']);
  return out;
}

const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);
function endToEnd(raw: readonly string[]): Array<[string, string]> {
  return pairs(raw).filter(([name]) => !HOP.has(name.toLowerCase()));
}

describe('listen with the Petstore contract', () => {
  let accepted: RecordedRequest;

  it('accepts a valid delivery, forwards the exact bytes and headers, answers with the app status', async () => {
    const io = memoryIo();
    const code = await sendCommand(
      [
        PETSTORE,
        'pet.adopted',
        '--url',
        `${listener.url}/webhooks`,
        '--secret',
        SECRET,
        '--header',
        'X-Trace: abc',
        '--json',
      ],
      io,
    );
    expect(io.err()).toBe('');
    const sent = io.jsonLines()[0] as {
      status: number;
      request: { headers: Array<[string, string]>; body: string };
      response: { body: string };
    };
    expect(code).toBe(0);
    expect(sent.status).toBe(202);
    expect(sent.response.body).toBe('{"app":"accepted"}');

    expect(app.requests).toHaveLength(1);
    accepted = app.requests[0] as RecordedRequest;
    expect(accepted.url).toBe('/hooks?x=1');
    expect(accepted.body.toString('utf8')).toBe(sent.request.body);
    // Every header the sender set arrives unchanged (name case and order included).
    expect(endToEnd(accepted.rawHeaders)).toEqual(sent.request.headers);

    const record = records().at(-1);
    expect(record).toMatchObject({
      method: 'POST',
      path: '/webhooks',
      status: 202,
      inspection: { ok: true, contract: 'petstore-openapi', event: 'pet.adopted' },
      forwarded: { status: 202 },
    });
    expect((record as ListenRecord & { body: { event: string } }).body.event).toBe('pet.adopted');
    expect(record?.inspection.checks.map((c) => [c.name, c.ok])).toEqual([
      ['signature', true],
      ['timestamp', true],
      ['envelope', true],
      ['event', true],
      ['payload', true],
    ]);
  });

  it('rejects a tampered delivery with 401 and does not forward it', async () => {
    const model = await loadContract(PETSTORE);
    const event = model.events.find((e) => e.name === 'pet.adopted');
    if (!event) throw new Error('pet.adopted missing');
    const delivery = planDelivery('test', { model, event, payload: event.examples[0] });
    const headers = await signDelivery(
      'test',
      createScheme('test', model, SECRET),
      delivery,
      Math.floor(Date.now() / 1000),
      listener.url,
    );
    // Same shape, one value changed after signing: only the signature can tell.
    const envelope = JSON.parse(Buffer.from(delivery.body).toString('utf8')) as { data: { petId: number } };
    envelope.data.petId += 1;
    const tampered = Buffer.from(JSON.stringify(envelope));
    const res = await fetch(listener.url, { method: 'POST', headers, body: tampered });
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { check: string; detail: string } };
    expect(body.error.check).toBe('signature');
    expect(body.error.detail).toContain('invalid_signature');
    expect(app.requests).toHaveLength(1);
    const record = records().at(-1);
    expect(record?.inspection.ok).toBe(false);
    expect(record?.inspection.checks[0]).toMatchObject({
      name: 'signature',
      ok: false,
      at: 'x-webhook-signature',
    });
    expect(record?.forwarded).toBeUndefined();
  });

  it('rejects a payload that does not match the contract with 400 and the pointer', async () => {
    const model = await loadContract(PETSTORE);
    const event = model.events.find((e) => e.name === 'pet.adopted');
    if (!event) throw new Error('pet.adopted missing');
    const bad = { ...(event.examples[0] as Record<string, unknown>), petId: 0 };
    const delivery = planDelivery('test', { model, event, payload: bad });
    const headers = await signDelivery(
      'test',
      createScheme('test', model, SECRET),
      delivery,
      Math.floor(Date.now() / 1000),
      listener.url,
    );
    const res = await fetch(listener.url, { method: 'POST', headers, body: Buffer.from(delivery.body) });
    expect(res.status).toBe(400);
    const check = records()
      .at(-1)
      ?.inspection.checks.find((c) => !c.ok);
    expect(check).toMatchObject({ name: 'payload', at: '/data/petId' });
    expect(check?.detail).toContain('/data/petId must be >= 1');
  });

  it('saves every delivery; the valid capture replays byte-identical', async () => {
    const files = readdirSync(saveDir).sort();
    expect(files).toHaveLength(3);
    const captures = files.map(
      (f) => JSON.parse(readFileSync(path.join(saveDir, f), 'utf8')) as CapturedDelivery,
    );
    expect(captures.map((c) => c.verdict.status)).toEqual([202, 401, 400]);
    const valid = captures[0] as CapturedDelivery;
    expect(valid).toMatchObject({ event: 'pet.adopted', path: '/webhooks', verdict: { ok: true } });
    expect(Buffer.compare(captureBody(valid), accepted.body)).toBe(0);

    const io = memoryIo();
    const code = await replayCommand(
      ['--from', path.join(saveDir, files[0] ?? ''), '--url', target.url, '--times', '2', '--json'],
      io,
    );
    expect(io.err()).toBe('');
    // The target answers 200 with no duplicate signal: the replay itself worked, the verdict says so.
    expect(code).toBe(1);
    expect(target.requests).toHaveLength(2);
    for (const request of target.requests) {
      expect(Buffer.compare(request.body, captureBody(valid))).toBe(0);
      expect(endToEnd(request.rawHeaders)).toEqual(endToEnd(valid.headers.flat()));
    }
  });

  it('replays a capture re-signed with a fresh timestamp (--resign), id kept', async () => {
    const files = readdirSync(saveDir).sort();
    const valid = JSON.parse(readFileSync(path.join(saveDir, files[0] ?? ''), 'utf8')) as CapturedDelivery;
    const io = memoryIo();
    const code = await replayCommand(
      [
        PETSTORE,
        '--from',
        path.join(saveDir, files[0] ?? ''),
        '--resign',
        '--secret',
        SECRET,
        '--url',
        `${listener.url}/again`,
        '--times',
        '1',
        '--json',
      ],
      io,
    );
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    const record = records().at(-1);
    expect(record).toMatchObject({ path: '/again', inspection: { ok: true, id: valid.id } });
  });
});

describe('listen edge cases', () => {
  it('answers 400 to a delivery outside the timestamp window', async () => {
    const later = Date.now() + 3_600_000;
    const stale = await listen([PETSTORE, '--secret', SECRET, '--no-save', '--json'], () => later);
    try {
      const io = memoryIo();
      const code = await sendCommand([PETSTORE, 'order.created', '--url', stale.url, '--secret', SECRET], io);
      expect(code).toBe(1);
      expect(io.out()).toMatch(/← 400 Bad Request/);
      const record = deliveries(stale.io)[0] as ListenRecord;
      expect(record.inspection.checks[0]).toMatchObject({ name: 'timestamp', ok: false });
      expect(record.inspection.checks[0]?.detail).toContain('timestamp_too_old');
    } finally {
      expect(await stale.stop()).toBe(0);
    }
  });

  it('without a secret or contract: says what it could not check, prints readable text', async () => {
    const open = await listen(['--no-save']);
    try {
      const res = await fetch(open.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
        body: JSON.stringify({
          id: 'msg_1',
          type: 'thing.happened',
          timestamp: new Date().toISOString(),
          data: {},
        }),
      });
      expect(res.status).toBe(200);
      expect(open.io.out()).toMatch(/✔ .* POST \/ thing\.happened msg_1 → 200/);
      expect(open.io.out()).toContain('– signature  not checked (standard-webhooks): no --secret given');
      expect(open.io.out()).toContain('– payload    not validated: no contract given');
      expect(open.io.out()).toContain('        "type": "thing.happened",');
      expect(open.io.out()).not.toContain('\u001b[');
      expect(open.io.err()).toContain('no --secret: signatures are NOT checked');
    } finally {
      await open.stop();
    }
  });

  it('an unreachable app answers 502; --forward-invalid forwards rejected deliveries but keeps their status', async () => {
    const { closedPort } = await import('./helpers.js');
    const port = await closedPort();
    const down = await listen([
      PETSTORE,
      '--secret',
      SECRET,
      '--no-save',
      '--json',
      '--forward',
      `http://127.0.0.1:${port}/`,
    ]);
    try {
      const io = memoryIo();
      expect(await sendCommand([PETSTORE, 'order.created', '--url', down.url, '--secret', SECRET], io)).toBe(
        1,
      );
      expect(io.out()).toMatch(/← 502 Bad Gateway/);
      expect(io.out()).toContain('ECONNREFUSED');
      expect(deliveries(down.io)[0]?.forwarded?.error).toMatch(/ECONNREFUSED/);
    } finally {
      await down.stop();
    }
    const both = await listen([
      PETSTORE,
      '--secret',
      SECRET,
      '--no-save',
      '--json',
      '--forward',
      app.url,
      '--forward-invalid',
    ]);
    try {
      const before = app.requests.length;
      const io = memoryIo();
      expect(
        await sendCommand([PETSTORE, 'order.created', '--url', both.url, '--secret', 'not-the-secret'], io),
      ).toBe(1);
      expect(io.out()).toMatch(/← 401 Unauthorized/);
      expect(app.requests.length).toBe(before + 1);
      expect(deliveries(both.io)[0]).toMatchObject({ status: 401, forwarded: { status: 202 } });
    } finally {
      await both.stop();
    }
  });

  it('a busy port or a bad flag is one line and exit 2', async () => {
    const busy = await listen(['--no-save']);
    try {
      const io = memoryIo();
      expect(
        await listenCommand(['--port', new URL(busy.url).port, '--no-save'], io, {
          untilStopped: async () => {},
        }),
      ).toBe(2);
      expect(io.err()).toMatch(/^gen-webhooks listen: port \d+ is already in use \(EADDRINUSE\)/);
      const io2 = memoryIo();
      expect(await listenCommand(['--bogus'], io2)).toBe(2);
      expect(io2.err().trim().split('\n')).toHaveLength(1);
    } finally {
      await busy.stop();
    }
  });
});
