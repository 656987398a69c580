/**
 * The receiver's default validation is `report`: an invalid payload still reaches its handler with
 * `event.issues`, and the receiver's logger is warned once per event type per minute (the lines left
 * out counted on the next one), never with payload values. `strict` per receiver and per event still
 * answers 400; the sender stays strict.
 */
import { describe, expect, it } from 'vitest';
import { createSender } from '../../runtime/deliver/sender.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { isWebhookError } from '../../runtime/errors.js';
import type { ReceiverLogger } from '../../runtime/receive/hooks.js';
import { createReceiver } from '../../runtime/receive/receiver-web.js';
import type { ReceivedEvent } from '../../runtime/receive/types.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { adopted, delivery, type PetstoreEvents, petstore, SECRET } from './fixtures.js';

type Options = Parameters<typeof createReceiver<PetstoreEvents>>[1];

interface Line {
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

function setup(extra: Partial<Options> = {}) {
  const seen: ReceivedEvent<string, unknown, unknown>[] = [];
  const warned: Line[] = [];
  const logger: ReceiverLogger = {
    info: () => {},
    warn: (fields, message) => warned.push({ fields, message }),
    error: () => {},
  };
  let clock = Date.now();
  const receiver = createReceiver(petstore, {
    secret: SECRET,
    store: memoryStore(),
    logger,
    now: () => clock,
    handlers: {
      'pet.adopted': (event) => {
        seen.push(event);
      },
      'pet.listed': (event) => {
        seen.push(event);
      },
    },
    ...extra,
  } as Options);
  const advance = (ms: number) => {
    clock += ms;
  };
  return { receiver, seen, warned, advance };
}

// `secret-ish` stands for a payload value that must never reach a log line.
const badAdopted = () => ({ petId: '', adopter: { name: 42 }, note: 'secret-ish' });
const badListed = () => ({ petId: 'rex', price: -1 });

describe('receiver default validation: report', () => {
  it('runs the handler with event.issues and data as received; answers 200', async () => {
    const { receiver, seen } = setup();
    const result = await receiver.handle(delivery('pet.adopted', badAdopted()));
    expect(result).toMatchObject({ status: 200, outcome: 'processed' });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.data).toEqual(badAdopted());
    expect(seen[0]?.issues.map((i) => i.path).sort()).toEqual(['/data/adopter/name', '/data/petId']);
  });

  it('warns the logger once per event type per window, then reports the suppressed count', async () => {
    const { receiver, warned, advance } = setup();
    for (let i = 0; i < 5; i++) await receiver.handle(delivery('pet.adopted', badAdopted()));
    await receiver.handle(delivery('pet.listed', badListed()));
    await receiver.handle(delivery('pet.listed', badListed()));
    // A valid payload is not an issue and is not counted.
    await receiver.handle(delivery('pet.adopted', adopted()));
    expect(warned.map((l) => l.fields['type'])).toEqual(['pet.adopted', 'pet.listed']);

    const first = warned[0] as Line;
    expect(first.fields).toMatchObject({ type: 'pet.adopted', issueCount: 2 });
    expect(typeof first.fields['id']).toBe('string');
    expect(first.fields['suppressed']).toBeUndefined();
    const issues = first.fields['issues'] as { path: string; message: string }[];
    expect(issues.map((i) => i.path).sort()).toEqual(['/data/adopter/name', '/data/petId']);
    expect(first.message).toContain('"pet.adopted"');
    // Paths and messages only: no payload value in the line.
    expect(JSON.stringify(warned)).not.toContain('secret-ish');

    // Still inside the window: nothing more.
    advance(59_000);
    await receiver.handle(delivery('pet.adopted', badAdopted()));
    expect(warned).toHaveLength(2);

    // Past the window: one line with the count of the ones left out (4 + 1).
    advance(2_000);
    await receiver.handle(delivery('pet.adopted', badAdopted()));
    expect(warned).toHaveLength(3);
    expect(warned[2]?.fields).toMatchObject({ type: 'pet.adopted', suppressed: 5 });
    expect(warned[2]?.message).toContain('5 more');
  });

  it('with onValidationIssue given, the hook gets every issue and the logger none', async () => {
    const hooked: string[] = [];
    const { receiver, warned, seen } = setup({
      onValidationIssue: (event, issues) => hooked.push(`${event.type}:${issues.length}`),
    });
    await receiver.handle(delivery('pet.adopted', badAdopted()));
    await receiver.handle(delivery('pet.adopted', badAdopted()));
    expect(hooked).toEqual(['pet.adopted:2', 'pet.adopted:2']);
    expect(warned).toEqual([]);
    expect(seen).toHaveLength(2);
  });

  it("validation: 'strict' per receiver still answers 400 invalid_payload without the handler", async () => {
    const { receiver, seen, warned } = setup({ validation: 'strict' });
    const result = await receiver.handle(delivery('pet.adopted', badAdopted()));
    expect(result.status).toBe(400);
    expect(JSON.parse(result.body)).toMatchObject({ error: { code: 'invalid_payload' } });
    expect(seen).toHaveLength(0);
    // The 400 says it; no warn line besides.
    expect(warned).toEqual([]);
  });

  it("validationByEvent: { event: 'strict' } 400s that event while the others stay on report", async () => {
    const { receiver, seen } = setup({ validationByEvent: { 'pet.adopted': 'strict' } });
    expect((await receiver.handle(delivery('pet.adopted', badAdopted()))).status).toBe(400);
    expect((await receiver.handle(delivery('pet.listed', badListed()))).status).toBe(200);
    expect(seen.map((e) => e.type)).toEqual(['pet.listed']);
  });

  it('the sender stays strict by default: an invalid payload throws invalid_payload', async () => {
    const sender = createSender(petstore, { outbox: sqliteOutbox(':memory:') });
    const error = await sender
      .send('pet.adopted', badAdopted() as unknown as PetstoreEvents['pet.adopted'])
      .catch((e: unknown) => e);
    expect(isWebhookError(error, 'invalid_payload')).toBe(true);
  });
});
