/** `gen-webhooks mock-receiver`: a deliberately unreliable endpoint for watching a sender retry. */

import { MOCK_RECEIVER_HELP, mockReceiverCommand } from '../tools/mock-receiver-command.js';
import { processIo } from '../tools/output.js';
import type { Command } from './types.js';

export const command: Command = {
  summary: 'Run a receiver that fails, delays or drops deliveries on purpose',
  help: MOCK_RECEIVER_HELP,
  run: (argv) => mockReceiverCommand(argv, processIo()),
};
