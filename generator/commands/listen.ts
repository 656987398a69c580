/** `gen-webhooks listen`: a local, checking receiver that saves and forwards deliveries. */

import { LISTEN_HELP, listenCommand } from '../tools/listen-command.js';
import { processIo } from '../tools/output.js';
import type { Command } from './types.js';

export const command: Command = {
  summary: 'Receive deliveries locally: verify, validate, print, save and forward them',
  help: LISTEN_HELP,
  run: (argv) => listenCommand(argv, processIo()),
};
