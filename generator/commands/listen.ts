/** `gen-webhooks listen`: a local, checking receiver that saves and forwards deliveries. */
import type { Command } from '../cli.js';
import { LISTEN_HELP, listenCommand } from '../tools/listen-command.js';
import { processIo } from '../tools/output.js';

export const command: Command = {
  summary: 'Receive deliveries locally: verify, validate, print, save and forward them',
  help: LISTEN_HELP,
  run: (argv) => listenCommand(argv, processIo()),
};
