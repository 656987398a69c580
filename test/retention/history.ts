/**
 * Random outbox histories for the pruning properties: messages in creation order, each with a
 * delivery per endpoint in any state, each delivery with a few attempts; plus the model of what a
 * prune at `now` with the given windows must delete. Time only moves forward with insertion order
 * (as a real outbox writes it), so the model is exact, not only safe.
 */
import fc from 'fast-check';

export const T0 = 1_750_000_000_000;
export const DAY = 24 * 60 * 60 * 1000;

export type Status = 'pending' | 'delivering' | 'succeeded' | 'dead';

export interface HistoryAttempt {
  readonly id: number;
  readonly startedAt: number;
}
export interface HistoryDelivery {
  readonly id: string;
  readonly endpointId: string;
  readonly status: Status;
  readonly finishedAt: number | null;
  readonly attempts: readonly HistoryAttempt[];
}
export interface HistoryMessage {
  readonly id: string;
  readonly createdAt: number;
  readonly deliveries: readonly HistoryDelivery[];
}
export interface History {
  readonly messages: readonly HistoryMessage[];
  readonly now: number;
  readonly keepAttemptsMs: number;
  readonly keepMessagesMs: number;
  readonly batchSize: number;
}

export const ENDPOINTS = ['ep_a', 'ep_b'] as const;

const messageShape = fc.record({
  gap: fc.integer({ min: 0, max: 3 * DAY }),
  deliveries: fc.subarray([...ENDPOINTS]).chain((endpoints) =>
    fc.tuple(
      ...endpoints.map((endpointId) =>
        fc.record({
          endpointId: fc.constant(endpointId),
          status: fc.constantFrom<Status>('pending', 'delivering', 'succeeded', 'dead'),
          finishedAfter: fc.integer({ min: 0, max: 4 * DAY }),
          attempts: fc.array(fc.integer({ min: 0, max: DAY }), { maxLength: 3 }),
        }),
      ),
    ),
  ),
});

export const historyArb: fc.Arbitrary<History> = fc
  .record({
    shapes: fc.array(messageShape, { maxLength: 30 }),
    nowAfter: fc.integer({ min: 0, max: 20 * DAY }),
    keepAttemptsMs: fc.integer({ min: 0, max: 10 * DAY }),
    keepMessagesMs: fc.integer({ min: 0, max: 15 * DAY }),
    batchSize: fc.integer({ min: 1, max: 7 }),
  })
  .map(({ shapes, nowAfter, keepAttemptsMs, keepMessagesMs, batchSize }) => {
    let t = T0;
    let attemptId = 0;
    const messages = shapes.map((shape, i): HistoryMessage => {
      t += shape.gap;
      const createdAt = t;
      return {
        id: `msg_${i}`,
        createdAt,
        deliveries: shape.deliveries.map((d) => {
          const finished = d.status === 'succeeded' || d.status === 'dead';
          return {
            // The outboxes' time-ordered ids: creation ms in hex, then a tie-breaker.
            id: `dlv_${createdAt.toString(16).padStart(12, '0')}${i.toString(16).padStart(4, '0')}${d.endpointId}`,
            endpointId: d.endpointId,
            status: d.status,
            finishedAt: finished ? createdAt + d.finishedAfter : null,
            attempts: [...d.attempts]
              .sort((a, b) => a - b)
              .map((after) => ({ id: ++attemptId, startedAt: createdAt + after })),
          };
        }),
      };
    });
    // Attempts are numbered in the order they happen.
    const all = messages.flatMap((m) => m.deliveries.flatMap((d) => d.attempts));
    const byTime = [...all].sort((a, b) => a.startedAt - b.startedAt || a.id - b.id);
    const renumber = new Map(byTime.map((a, i) => [a.id, i + 1]));
    const renumbered = messages.map((m) => ({
      ...m,
      deliveries: m.deliveries.map((d) => ({
        ...d,
        attempts: d.attempts.map((a) => ({ ...a, id: renumber.get(a.id) as number })),
      })),
    }));
    return { messages: renumbered, now: t + nowAfter, keepAttemptsMs, keepMessagesMs, batchSize };
  });

const finishedBefore = (d: HistoryDelivery, before: number) =>
  (d.status === 'succeeded' || d.status === 'dead') && d.finishedAt !== null && d.finishedAt < before;

/** What must survive the prune: message ids, delivery ids, attempt ids. */
export function expectedAfterPrune(h: History) {
  const messagesBefore = h.now - h.keepMessagesMs;
  const attemptsBefore = h.now - h.keepAttemptsMs;
  const messages: string[] = [];
  const deliveries: string[] = [];
  const attempts: number[] = [];
  for (const m of h.messages) {
    const goes = m.createdAt < messagesBefore && m.deliveries.every((d) => finishedBefore(d, messagesBefore));
    if (goes) continue;
    messages.push(m.id);
    for (const d of m.deliveries) {
      deliveries.push(d.id);
      for (const a of d.attempts) {
        if (!(a.startedAt < attemptsBefore && finishedBefore(d, attemptsBefore))) attempts.push(a.id);
      }
    }
  }
  return {
    messages: messages.sort(),
    deliveries: deliveries.sort(),
    attempts: attempts.sort((a, b) => a - b),
  };
}

/** Rows that must never go whatever the windows: pending or leased deliveries and their attempts. */
export function unfinished(h: History) {
  return h.messages.flatMap((m) =>
    m.deliveries.filter((d) => d.status === 'pending' || d.status === 'delivering').map((d) => d.id),
  );
}
