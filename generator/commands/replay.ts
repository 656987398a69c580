/** `gen-webhooks replay`: the same delivery N times, to check that a receiver deduplicates. */

import { processIo } from '../tools/output.js';
import { REPLAY_HELP, replayCommand } from '../tools/replay.js';
import type { Command } from './types.js';

export const command: Command = {
  summary: 'Send the same signed delivery N times and check the receiver is idempotent',
  help: REPLAY_HELP,
  run: (argv) => replayCommand(argv, processIo()),
};
