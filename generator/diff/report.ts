/** Sorts the changes into the report shape `--json` prints: breaking per audience, safe, summary. */
import type { ContractModel } from '../model.js';
import type { DiffChange, DiffReport } from './types.js';

export function buildReport(
  oldModel: ContractModel,
  newModel: ContractModel,
  changes: readonly DiffChange[],
): DiffReport {
  const receivers = changes.filter((c) => c.breaks.includes('receivers'));
  const senders = changes.filter((c) => c.breaks.includes('senders'));
  const safe = changes.filter((c) => c.breaks.length === 0);
  const counts = (direction: 'client' | undefined) => {
    const mine = changes.filter((c) => c.direction === direction);
    const changed = new Set(
      mine
        .filter((c) => c.event !== undefined && c.rule !== 'event-added' && c.rule !== 'event-removed')
        .map((c) => c.event),
    );
    return {
      added: mine.filter((c) => c.rule === 'event-added').length,
      removed: mine.filter((c) => c.rule === 'event-removed').length,
      changed: changed.size,
    };
  };
  const events = counts(undefined);
  const messages = counts('client');
  return {
    breaking: { receivers, senders },
    safe,
    summary: {
      old: { title: oldModel.title, version: oldModel.version, events: oldModel.events.length },
      new: { title: newModel.title, version: newModel.version, events: newModel.events.length },
      receivers: receivers.length,
      senders: senders.length,
      safe: safe.length,
      breaking: changes.length - safe.length,
      eventsAdded: events.added,
      eventsRemoved: events.removed,
      eventsChanged: events.changed,
      clientMessagesAdded: messages.added,
      clientMessagesRemoved: messages.removed,
      clientMessagesChanged: messages.changed,
    },
  };
}
