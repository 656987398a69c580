/**
 * `gen-webhooks` entry point: dispatches to one file per command under ./commands. Each command
 * exports `run(argv): Promise<number>` (the exit code) and `help` (its usage text).
 * Exit codes: 0 ok, 1 check failed / breaking change / checks did not pass, 2 bad input or usage.
 */
import { pathToFileURL } from 'node:url';
import type { Command } from './commands/types.js';
import { GeneratorError } from './errors.js';

const COMMANDS: Record<string, () => Promise<Command>> = {
  generate: async () => (await import('./commands/generate.js')).command,
  diff: async () => (await import('./commands/diff.js')).command,
  send: async () => (await import('./commands/send.js')).command,
  replay: async () => (await import('./commands/replay.js')).command,
  listen: async () => (await import('./commands/listen.js')).command,
  'mock-receiver': async () => (await import('./commands/mock-receiver.js')).command,
  outbox: async () => (await import('./commands/outbox.js')).command,
};

async function usage(): Promise<string> {
  const lines = [
    'Usage: gen-webhooks [generate] <file|dir>... [options]',
    '       gen-webhooks <command> [options]',
    '',
    'Commands:',
  ];
  for (const [name, load] of Object.entries(COMMANDS)) {
    const cmd = await load();
    lines.push(`  ${name.padEnd(15)}${cmd.summary}`);
  }
  lines.push('', 'Run `gen-webhooks <command> --help` for the options of one command.');
  lines.push('Exit codes: 0 success, 1 check failed or breaking change, 2 bad input or usage.');
  return lines.join('\n');
}

export async function main(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  try {
    // Bare `gen-webhooks` in a project with a gen-webhooks.config.* generates from it, as the help says.
    if (first === undefined && (await import('./config.js')).findConfig(process.cwd()) !== undefined) {
      return await (await COMMANDS.generate!()).run([]);
    }
    if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
      process.stdout.write(`${await usage()}\n`);
      return first === undefined ? 2 : 0;
    }
    if (first === '--version' || first === '-v') {
      const { generatorVersion } = await import('./generate.js');
      process.stdout.write(`${generatorVersion()}\n`);
      return 0;
    }
    const load = COMMANDS[first];
    // Anything that is not a command name is a contract path: `gen-webhooks schemas/` means generate.
    const command = load ? await load() : await COMMANDS.generate!();
    const args = load ? rest : argv;
    if (args.includes('--help') || args.includes('-h')) {
      process.stdout.write(`${command.help}\n`);
      return 0;
    }
    return await command.run(args);
  } catch (error) {
    if (error instanceof GeneratorError) {
      process.stderr.write(`gen-webhooks: ${error.format()}\n`);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`gen-webhooks: internal error: ${message}\n`);
    return 70;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
