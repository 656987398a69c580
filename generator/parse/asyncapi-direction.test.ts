/**
 * AsyncAPI documents with both directions: what the application sends are the webhook events, what
 * it receives is `received` (emitted as `ClientMessages`), and the generated receiver does not take
 * a client message for an event. One-direction documents keep every message as an event.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { standardWebhookHeaders } from '../../runtime/signing/standard-webhooks.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { repoRoot } from '../../test/types/typecheck.js';
import type { ResolvedPackage } from '../emit/package/package-json.js';
import { emitReadme } from '../emit/package/readme.js';
import { generate } from '../generate.js';
import { loadContract } from './index.js';

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'direction-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const spec26 = path.join(repoRoot, 'test/golden/specs/chat.asyncapi26.yaml');
const spec3 = path.join(repoRoot, 'test/golden/specs/chat.asyncapi3.yaml');
const summary = (events: readonly { name: string; direction?: string }[] | undefined) =>
  events?.map((e) => [e.name, e.direction]);

describe('AsyncAPI directions', () => {
  it('2.x: subscribe messages are events, publish messages are received; one used both ways is in both', async () => {
    const model = await loadContract(spec26);
    expect(summary(model.events)).toEqual([
      ['heartbeat', 'both'],
      ['message.posted', 'send'],
      ['user.joined', 'send'],
    ]);
    expect(summary(model.received)).toEqual([
      ['heartbeat', 'both'],
      ['message.post', 'receive'],
    ]);
    // Fixtures come from message examples and, without those, payload-schema examples.
    expect(model.events.find((e) => e.name === 'user.joined')?.examples).toEqual([
      { type: 'user.joined', room: 'lobby', user: 'grace' },
    ]);
    expect(model.received?.find((e) => e.name === 'message.post')?.examples).toEqual([
      { type: 'message.post', room: 'lobby', text: 'hi' },
    ]);
    // The selector is derived from the events alone (`type` const per event).
    expect(model.selector).toEqual({ kind: 'body', field: 'type' });
    expect(model.diagnostics.map((d) => [d.level, d.code, d.message])).toContainEqual([
      'info',
      'client_messages',
      'both directions: the 2 message(s) the application receives (publish operations) are ClientMessages, not webhook events: heartbeat, message.post',
    ]);
  });

  it("an SDK package's README lists the client messages apart from the events", async () => {
    const model = await loadContract(spec26);
    const pkg = { name: 'chat-webhooks', description: 'Chat', license: 'MIT' } as unknown as ResolvedPackage;
    const readme = emitReadme({
      model,
      pkg,
      fixtures: new Map(),
      generatorVersion: '0.0.0',
      source: 'chat.yaml',
    });
    const events = readme.slice(readme.indexOf('## Events (3)'), readme.indexOf('## Client messages (2)'));
    expect(events).toContain('message.posted');
    expect(events).not.toContain('message.post`');
    expect(readme).toContain('- `message.post` — A client posts in a room');
  });

  it('3.x: action send → events, action receive → received', async () => {
    const model = await loadContract(spec3);
    expect(summary(model.events)).toEqual([
      ['heartbeat', 'both'],
      ['message.posted', 'send'],
    ]);
    expect(summary(model.received)).toEqual([
      ['heartbeat', 'both'],
      ['message.post', 'receive'],
    ]);
    expect(model.received?.find((e) => e.name === 'message.post')?.examples).toEqual([
      { type: 'message.post', room: 'lobby', text: 'hi' },
    ]);
  });

  it('a one-direction document keeps every message as an event, without a direction', async () => {
    const only = (action: 'send' | 'receive') => {
      const file = path.join(dir, `${action}-only.asyncapi.yaml`);
      writeFileSync(
        file,
        stringify({
          asyncapi: '3.0.0',
          info: { title: 'One way', version: '1.0.0' },
          channels: {
            c: {
              messages: {
                a: { name: 'a', payload: { type: 'object' } },
                b: { name: 'b', payload: { type: 'object' } },
              },
            },
          },
          operations: { op: { action, channel: { $ref: '#/channels/c' } } },
        }),
      );
      return file;
    };
    for (const action of ['send', 'receive'] as const) {
      const model = await loadContract(only(action));
      expect(summary(model.events)).toEqual([
        ['a', undefined],
        ['b', undefined],
      ]);
      expect(model.received).toBeUndefined();
    }
    const publishOnly = await loadContract(
      path.join(repoRoot, 'test/golden/specs/notifications.asyncapi26.yaml'),
    );
    expect(publishOnly.received).toBeUndefined();
    expect(publishOnly.events.every((e) => e.direction === undefined)).toBe(true);
  });

  it('the generated receiver accepts events and refuses a client message as an event', async () => {
    const out = path.join(dir, 'out');
    const result = await generate({ inputs: [spec26, spec3], out, cwd: repoRoot });
    expect(result.contracts.map((c) => c.name).sort()).toEqual(['chat-asyncapi26', 'chat-asyncapi3']);
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    for (const name of ['chat-asyncapi26', 'chat-asyncapi3']) {
      const mod = (await import(pathToFileURL(path.join(out, name, 'index.ts')).href)) as {
        createReceiver: (options: unknown) => {
          handle(request: { headers: Record<string, string>; body: string }): Promise<{ status: number }>;
        };
        clientMessageSchemas: Record<string, unknown>;
        eventSchemas: Record<string, unknown>;
      };
      expect(Object.keys(mod.clientMessageSchemas).sort()).toEqual(['heartbeat', 'message.post']);
      expect(Object.keys(mod.eventSchemas)).not.toContain('message.post');
      const seen: string[] = [];
      const unknown: string[] = [];
      const receiver = mod.createReceiver({
        secret,
        store: memoryStore(),
        handlers: {
          'message.posted': (event: { type: string }) => void seen.push(event.type),
          heartbeat: (event: { type: string }) => void seen.push(event.type),
          ...(name === 'chat-asyncapi26' ? { 'user.joined': () => undefined } : {}),
        },
        onError: (error: { code: string }) => void unknown.push(error.code),
      });
      let n = 0;
      const signed = (body: unknown) => {
        const text = JSON.stringify(body);
        const id = `msg_${name}_${++n}`;
        return {
          headers: {
            'content-type': 'application/json',
            ...standardWebhookHeaders({ id, timestamp: Math.floor(Date.now() / 1000), body: text, secret }),
          },
          body: text,
        };
      };
      const posted = await receiver.handle(
        signed({ type: 'message.posted', room: 'lobby', text: 'hello', author: 'ada' }),
      );
      expect(posted.status).toBe(200);
      const beat = await receiver.handle(signed({ type: 'heartbeat', at: 3 }));
      expect(beat.status).toBe(200);
      // A well-formed, correctly signed client command is not an event of this contract.
      const command = await receiver.handle(signed({ type: 'message.post', room: 'lobby', text: 'hi' }));
      expect(seen).toEqual(['message.posted', 'heartbeat']);
      expect(command.status).not.toBe(500);
      expect(unknown).toEqual(['unknown_event']);
    }
  }, 120_000);
});
