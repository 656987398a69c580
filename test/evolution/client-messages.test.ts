/**
 * `diffContracts` on two-way AsyncAPI documents: changes to the messages the application receives
 * (`ClientMessages`) are reported apart from the events, with the audience mirrored, because the
 * receivers' side writes those messages and the application reads them. The SDK version bump follows.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type DiffReport, diffContracts, formatDiffText } from '../../generator/diff/index.js';
import { classifyBump, contractDigest } from '../../generator/emit/package/changelog.js';
import { loadContract } from '../../generator/parse/index.js';
import { repoRoot } from '../types/typecheck.js';

const spec = path.join(repoRoot, 'test/golden/specs/chat.asyncapi3.yaml');
const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'client-diff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Doc = {
  channels: { rooms: { messages: Record<string, { payload: Record<string, unknown> }> } };
  operations: Record<string, { messages: { $ref: string }[] }>;
};
let count = 0;

/** The chat contract with `edit` applied, written to its own file. */
async function variant(edit: (doc: Doc) => void) {
  const doc = parse(readFileSync(spec, 'utf8')) as Doc;
  edit(doc);
  const file = path.join(dir, `chat-${++count}.yaml`);
  writeFileSync(file, stringify(doc));
  return loadContract(file);
}

const postMessage = (doc: Doc) => doc.channels.rooms.messages['postMessage']?.payload ?? {};
const all = (report: DiffReport) => [
  ...new Set([...report.breaking.receivers, ...report.breaking.senders, ...report.safe]),
];

describe('diff of client messages', () => {
  it('a required field added to a client message breaks the receivers, who write it', async () => {
    const before = await loadContract(spec);
    const after = await variant((doc) => {
      const payload = postMessage(doc);
      payload['required'] = [...(payload['required'] as string[]), 'author'];
      (payload['properties'] as Record<string, unknown>)['author'] = { type: 'string' };
    });
    const report = diffContracts(before, after);
    const changes = all(report).filter((c) => c.rule !== 'docs-changed');
    expect(changes).toEqual([
      expect.objectContaining({
        rule: 'required-field-added',
        direction: 'client',
        event: 'message.post',
        location: 'payload',
        pointer: '/properties/author',
        breaks: ['receivers'],
      }),
    ]);
    // The same change to an event breaks senders only: the mirror is what makes this a major release.
    expect(classifyBump(report)).toBe('major');
    expect(report.summary.clientMessagesChanged).toBe(1);
    expect(report.summary.eventsChanged).toBe(0);
    expect(formatDiffText(report)).toContain('client message message.post');
  });

  it('a field removed from a client message breaks the application, which reads it', async () => {
    const before = await loadContract(spec);
    const after = await variant((doc) => {
      const payload = postMessage(doc);
      payload['required'] = ['type', 'room'];
      delete (payload['properties'] as Record<string, unknown>)['text'];
    });
    const report = diffContracts(before, after);
    const change = all(report).find((c) => c.rule === 'field-removed');
    expect(change).toMatchObject({ direction: 'client', event: 'message.post', breaks: ['senders'] });
    expect(report.breaking.receivers).toEqual([]);
    expect(classifyBump(report)).toBe('minor');
  });

  it('a client message removed breaks its writers; one added is safe; events are untouched', async () => {
    const before = await loadContract(spec);
    const removed = await variant((doc) => {
      const receive = doc.operations['receiveCommands'];
      if (receive) receive.messages = receive.messages.filter((m) => !m.$ref.endsWith('/postMessage'));
    });
    const report = diffContracts(before, removed);
    expect(all(report).map((c) => [c.rule, c.direction, c.event, c.breaks, c.message])).toEqual([
      ['event-removed', 'client', 'message.post', ['receivers'], 'client message "message.post" removed'],
    ]);
    expect(report.summary).toMatchObject({ clientMessagesRemoved: 1, eventsRemoved: 0 });
    const back = diffContracts(removed, before);
    expect(all(back).map((c) => [c.rule, c.direction, c.breaks])).toEqual([['event-added', 'client', []]]);
    expect(classifyBump(back)).toBe('minor');
  });

  it('a one-direction contract reports no client messages, and its digest does not move', async () => {
    const petstore = await loadContract(path.join(repoRoot, 'schemas/petstore.openapi.yaml'));
    const report = diffContracts(petstore, petstore);
    expect(report.summary).toMatchObject({
      clientMessagesAdded: 0,
      clientMessagesRemoved: 0,
      clientMessagesChanged: 0,
    });
    expect(formatDiffText(report)).not.toContain('client messages');
    // A client-message-only change still changes the two-way contract's digest (a new changelog entry).
    const before = await loadContract(spec);
    const after = await variant((doc) => {
      (postMessage(doc)['properties'] as Record<string, unknown>)['room'] = { type: 'string', maxLength: 9 };
    });
    expect(contractDigest(before)).not.toBe(contractDigest(after));
  });
});
