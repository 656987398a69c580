// Placeholder until the command lands; replaced by its owner.
import type { Command } from '../cli.js';

export const command: Command = {
  summary: '(not yet available)',
  help: 'gen-webhooks generate: not yet available',
  async run() {
    process.stderr.write('gen-webhooks generate: not yet available\n');
    return 2;
  },
};
