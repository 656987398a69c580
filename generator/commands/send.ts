/** `gen-webhooks send`: one signed, contract-valid delivery of an event to a URL. */

import { processIo } from '../tools/output.js';
import { SEND_HELP, sendCommand } from '../tools/send.js';
import type { Command } from './types.js';

export const command: Command = {
  summary: 'Send one signed, contract-valid delivery of an event to a URL',
  help: SEND_HELP,
  run: (argv) => sendCommand(argv, processIo()),
};
