/**
 * The option keys `createSender` takes (known-options.ts), shared by the Node and Web entries: the Web
 * one must not load sender.ts (node:*). sender.ts ties the list to `SenderOptions` (`ExactKeys`).
 */
export const SENDER_KEYS = {
  outbox: true,
  validation: true,
  onInvalid: true,
  maxPayloadBytes: true,
  urlPolicy: true,
  timeoutMs: true,
  agents: true,
  now: true,
  sleep: true,
  rng: true,
  generateId: true,
} as const;
