/** Argument handling of `gen-webhooks mock-receiver` (the server itself is mock-receiver.ts). */
import { GeneratorError } from '../errors.js';
import { booleanFlag, parseDuration, parseInteger, parseRate, parseToolArgs, stringFlag } from './args.js';
import { type Lifecycle, stopSignal } from './lifecycle.js';
import { startMockReceiver } from './mock-receiver.js';
import { listenError } from './net-errors.js';
import { runTool, type ToolIo, writeJson } from './output.js';

const NAME = 'mock-receiver';

export const MOCK_RECEIVER_HELP = `Usage: gen-webhooks mock-receiver [--port 4001] [options]

Answers webhook deliveries with configurable failures, slow answers and lost responses, and records
every attempt per event id (webhook-id and similar headers, else the envelope's "id", else a body hash)
so a sender's retry schedule and dead-lettering can be watched.

Options:
  --port <n>                  Port on 127.0.0.1 (default 4001; 0 picks a free one)
  --host <addr>               Interface to listen on (default 127.0.0.1)
  --fail-first <n>            The first n attempts of every event id fail (default 0)
  --fail-rate <p>             Fail attempts with probability p, 0..1 or 30% (default 0)
  --status <code>             Status of failed answers (default 500)
  --retry-after <value>       Send Retry-After: <value> with failed answers
  --delay <duration>          Wait before every answer, e.g. 500ms, 6s (default 0)
  --drop-response-rate <p>    Destroy the connection after reading the body, with probability p
  --seed <n>                  Seed for the rates (printed in the report to repeat a run)
  --quiet                     Do not print one line per attempt
  --json                      One JSON line per attempt and the report as JSON
  -h, --help                  Show this help

Per attempt: --fail-first, then --drop-response-rate, then --fail-rate, else 200 {"ok":true}.
The report (attempts per event id, outcome of each, gaps between attempts) is printed on
SIGINT/SIGTERM and served as JSON at GET /__report (DELETE /__report clears it).

Exit codes: 0 stopped normally, 2 bad arguments or the port is in use.`;

export function mockReceiverCommand(
  argv: readonly string[],
  io: ToolIo,
  lifecycle: Lifecycle = {},
): Promise<number> {
  const json = argv.includes('--json');
  return runTool(NAME, io, json, async () => {
    const args = parseToolArgs(NAME, argv, {
      port: { type: 'string' },
      host: { type: 'string' },
      'fail-first': { type: 'string' },
      'fail-rate': { type: 'string' },
      status: { type: 'string' },
      'retry-after': { type: 'string' },
      delay: { type: 'string' },
      'drop-response-rate': { type: 'string' },
      seed: { type: 'string' },
      quiet: { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (args.positionals.length > 0) {
      throw new GeneratorError(
        'invalid_argument',
        `${NAME}: unexpected argument ${JSON.stringify(args.positionals[0])}`,
        { expected: 'only options; see `gen-webhooks mock-receiver --help`' },
      );
    }
    const flag = (name: string) => stringFlag(args, name);
    const port = parseInteger(NAME, 'port', flag('port') ?? '4001', 0, 65535);
    const seedText = flag('seed');
    const retryAfter = flag('retry-after');
    const receiver = await startMockReceiver(
      {
        port,
        host: flag('host') ?? '127.0.0.1',
        failFirst: parseInteger(NAME, 'fail-first', flag('fail-first') ?? '0', 0, 1_000_000),
        failRate: parseRate(NAME, 'fail-rate', flag('fail-rate') ?? '0'),
        status: parseInteger(NAME, 'status', flag('status') ?? '500', 100, 599),
        delayMs: parseDuration(NAME, 'delay', flag('delay') ?? '0'),
        dropResponseRate: parseRate(NAME, 'drop-response-rate', flag('drop-response-rate') ?? '0'),
        ...(seedText === undefined ? {} : { seed: parseInteger(NAME, 'seed', seedText, 0, 2 ** 32 - 1) }),
        ...(retryAfter === undefined ? {} : { retryAfter }),
        quiet: booleanFlag(args, 'quiet'),
        json,
      },
      io,
    ).catch((error: unknown) => {
      throw listenError(NAME, port, error);
    });
    if (json) {
      writeJson(io, { kind: 'listening', url: receiver.url });
    } else {
      io.stderr.write(
        `mock-receiver listening on ${receiver.url} (report: GET ${receiver.url}/__report; Ctrl-C to stop)\n`,
      );
    }
    lifecycle.onListening?.(receiver.url);
    await stopSignal(lifecycle);
    receiver.printReport();
    await receiver.close();
    return 0;
  });
}
