/** `gen-webhooks outbox`: stats, dead letters and their replay, against a sender's outbox. */
import { OUTBOX_HELP, outboxCommand } from '../tools/outbox.js';
import { processIo } from '../tools/output.js';
import type { Command } from './types.js';

export const command: Command = {
  summary: 'Outbox stats, dead letters across endpoints, redelivery and purge (SQLite or PostgreSQL)',
  help: OUTBOX_HELP,
  run: (argv) => outboxCommand(argv, processIo()),
};
