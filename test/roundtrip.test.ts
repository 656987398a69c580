/**
 * Round trip through real HTTP on 127.0.0.1: the generated sender signs and POSTs every Petstore
 * fixture, the generated receiver verifies, validates and hands it to the typed handler — once with
 * the runtime imported from `@gen-webhooks/runtime`, once with the inlined runtime copy.
 */
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../generator/generate.js';
import { repoRoot } from './types/typecheck.js';

interface ReceivedEvent {
  readonly type: string;
  readonly id: string;
  readonly data: unknown;
}
interface GeneratedModule {
  fixtures: Record<string, unknown>;
  createSender(options: object): {
    sendNow(
      type: string,
      data: unknown,
      options: { url: string; secret: string; id?: string },
    ): Promise<{ delivered: boolean; messageId: string; attempts: readonly { status?: number }[] }>;
  };
  createReceiver(options: object): { node(): Parameters<typeof createServer>[1] };
}

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'roundtrip-'));
const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) server.close();
  rmSync(dir, { recursive: true, force: true });
});

const SECRET = 'roundtrip-secret';

/** The module's index plus its fixtures (test data, deliberately not re-exported by index.ts). */
async function load(out: string): Promise<GeneratedModule> {
  const folder = path.join(out, 'petstore-openapi');
  const index = (await import(pathToFileURL(path.join(folder, 'index.ts')).href)) as Omit<
    GeneratedModule,
    'fixtures'
  >;
  const { fixtures } = (await import(pathToFileURL(path.join(folder, 'fixtures.ts')).href)) as Pick<
    GeneratedModule,
    'fixtures'
  >;
  return { ...index, fixtures };
}

async function start(mod: GeneratedModule, received: ReceivedEvent[]): Promise<string> {
  const record = (event: ReceivedEvent) => {
    received.push({ type: event.type, id: event.id, data: event.data });
  };
  const handlers = Object.fromEntries(Object.keys(mod.fixtures).map((type) => [type, record]));
  const receiver = mod.createReceiver({ secret: SECRET, dedupe: false, exhaustive: true, handlers });
  const server = createServer(receiver.node());
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

describe.each(['package', 'inline'] as const)('round trip with --runtime %s', (runtime) => {
  it('delivers every event, typed and validated, and rejects a forged signature', async () => {
    const out = path.join(dir, runtime);
    await generate({ inputs: ['schemas/petstore.openapi.yaml'], out, runtime, cwd: repoRoot });
    const mod = await load(out);
    const received: ReceivedEvent[] = [];
    const url = await start(mod, received);
    const sender = mod.createSender({
      urlPolicy: { allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] },
    });
    const events = Object.keys(mod.fixtures).sort();
    expect(events).toHaveLength(6);
    for (const type of events) {
      const result = await sender.sendNow(type, mod.fixtures[type], {
        url,
        secret: SECRET,
        id: `msg_${type}`,
      });
      expect(result.delivered, type).toBe(true);
    }
    expect(received.map((e) => e.type)).toEqual(events);
    for (const event of received) {
      expect(event.data).toEqual(mod.fixtures[event.type]);
      expect(event.id).toBe(`msg_${event.type}`);
    }

    // Signed with another secret: the receiver answers 401 and the handler does not run.
    const forged = await sender.sendNow('pet.adopted', mod.fixtures['pet.adopted'], { url, secret: 'wrong' });
    expect(forged.delivered).toBe(false);
    expect(forged.attempts.at(-1)?.status).toBe(401);
    expect(received).toHaveLength(events.length);
  }, 120_000);
});

describe('sender validation', () => {
  it('refuses a payload that breaks the contract before anything is sent', async () => {
    const out = path.join(dir, 'package');
    const mod = await load(out);
    const sender = mod.createSender({
      urlPolicy: { allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] },
    });
    await expect(
      sender.sendNow(
        'pet.adopted',
        { petId: 'not-a-number' },
        { url: 'http://127.0.0.1:9/none', secret: SECRET },
      ),
    ).rejects.toMatchObject({ name: 'WebhookError', code: 'invalid_payload' });
  });
});
