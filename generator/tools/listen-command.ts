/** Argument handling of `gen-webhooks listen` (the server itself is listen.ts). */
import { GeneratorError } from '../errors.js';
import type { ContractModel } from '../model.js';
import { loadContracts } from '../parse/index.js';
import {
  booleanFlag,
  listFlag,
  parseDuration,
  parseInteger,
  parseToolArgs,
  parseUrl,
  stringFlag,
} from './args.js';
import { SECRET_ENV, secretFrom } from './contract.js';
import { createTarget } from './inspect.js';
import { type Lifecycle, stopSignal } from './lifecycle.js';
import { startListener } from './listen.js';
import { listenError } from './net-errors.js';
import { runTool, type ToolIo, writeJson } from './output.js';

const NAME = 'listen';

export const LISTEN_OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  secret: { type: 'string', multiple: true },
  tolerance: { type: 'string' },
  forward: { type: 'string' },
  'forward-invalid': { type: 'boolean' },
  'forward-timeout': { type: 'string' },
  'public-url': { type: 'string' },
  'save-dir': { type: 'string' },
  'no-save': { type: 'boolean' },
  'body-lines': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const LISTEN_HELP = `Usage: gen-webhooks listen [contract...] [--port 4000] [--secret <secret>] [options]

A local receiver on 127.0.0.1 for development. Each delivery is checked — signature and timestamp
window (the contract's scheme; Standard Webhooks when no contract is given), envelope, which event
it is, and the payload against the contract's schema — and printed with every check's result.
Each delivery is saved (headers, raw body as base64, verdict) for \`gen-webhooks replay --from\`.

Answers 200 to valid deliveries (or, with --forward, the app's own status and body), 401 to a bad
signature, 400 to a stale timestamp, a broken envelope, an unknown event or an invalid payload.

Arguments:
  contract...               Contract files or directories (several: the one whose signature and
                            selector match each delivery is used)

Options:
  --port <n>                Port (default 4000; 0 picks a free one)
  --host <addr>             Interface (default 127.0.0.1)
  --secret <secret>         Verification secret (or ${SECRET_ENV}); repeatable: each contract
                            uses the secrets its scheme accepts. Without one, signatures are not
                            checked and every delivery says so
  --tolerance <duration>    Timestamp window, both directions (default 5m)
  --forward <url>           Forward valid deliveries (exact bytes and headers) to your app
  --forward-invalid         Forward deliveries that failed a check too
  --forward-timeout <dur>   Time limit for the app's answer (default 10s)
  --public-url <url>        URL senders post to (e.g. a tunnel), for schemes that sign the URL
                            (Twilio); default this listener's address
  --save-dir <dir>          Where to save deliveries (default .deliveries)
  --no-save                 Do not save deliveries
  --body-lines <n>          Lines of each pretty-printed body to show (default 40; 0 hides bodies)
  --json                    One JSON line per delivery instead of text
  -h, --help                Show this help

Colours are used on a terminal unless NO_COLOR is set. Stop with Ctrl-C.
Exit codes: 0 stopped normally, 2 bad arguments, an unreadable contract or the port is in use.`;

export function listenCommand(
  argv: readonly string[],
  io: ToolIo,
  lifecycle: Lifecycle = {},
): Promise<number> {
  const json = argv.includes('--json');
  return runTool(NAME, io, json, async () => {
    const args = parseToolArgs(NAME, argv, LISTEN_OPTIONS);
    const port = parseInteger(NAME, 'port', stringFlag(args, 'port') ?? '4000', 0, 65535);
    const tolerance = Math.round(
      parseDuration(NAME, 'tolerance', stringFlag(args, 'tolerance') ?? '5m') / 1000,
    );
    const forwardText = stringFlag(args, 'forward');
    const forward = forwardText === undefined ? undefined : parseUrl(NAME, 'forward', forwardText).href;
    const publicText = stringFlag(args, 'public-url');
    const publicUrl = publicText === undefined ? undefined : parseUrl(NAME, 'public-url', publicText).href;
    const forwardTimeoutMs = parseDuration(
      NAME,
      'forward-timeout',
      stringFlag(args, 'forward-timeout') ?? '10s',
    );
    if (booleanFlag(args, 'no-save') && stringFlag(args, 'save-dir') !== undefined) {
      throw new GeneratorError('invalid_argument', `${NAME}: --save-dir and --no-save contradict each other`);
    }
    const saveDir = booleanFlag(args, 'no-save')
      ? undefined
      : (stringFlag(args, 'save-dir') ?? '.deliveries');
    let models: ContractModel[] = [];
    if (args.positionals.length > 0) {
      models = (await loadContracts(args.positionals)).contracts;
      if (models.length === 0) {
        throw new GeneratorError(
          'no_events',
          `${NAME}: no contract found in ${args.positionals.join(', ')}`,
          {
            expected: 'OpenAPI or AsyncAPI files with webhook events',
          },
        );
      }
    }
    const flagSecrets = listFlag(args, 'secret').filter((s) => s !== '');
    const envSecret = secretFrom(undefined, io.env);
    const secrets = flagSecrets.length > 0 ? flagSecrets : envSecret === undefined ? [] : [envSecret];
    const secret = secrets[0];
    const targetOptions = { tolerance, secrets, ...(io.now ? { now: io.now } : {}) };
    const targets =
      models.length > 0
        ? models.map((m) => createTarget(m, targetOptions))
        : [createTarget(undefined, targetOptions)];
    const unusable = targets.find((t) => t.secretError !== undefined);
    if (unusable && targets.every((t) => t.secretError !== undefined)) {
      throw new GeneratorError('invalid_argument', `${NAME}: ${unusable.secretError}`, {
        expected: 'a secret in the format of the contract’s signature scheme (whsec_… for Standard Webhooks)',
      });
    }
    const listener = await startListener(
      {
        port,
        host: stringFlag(args, 'host') ?? '127.0.0.1',
        ...(publicUrl ? { publicUrl } : {}),
        targets,
        ...(saveDir ? { saveDir } : {}),
        ...(forward ? { forward } : {}),
        forwardInvalid: booleanFlag(args, 'forward-invalid'),
        forwardTimeoutMs,
        bodyLines: parseInteger(NAME, 'body-lines', stringFlag(args, 'body-lines') ?? '40', 0, 100_000),
        json,
      },
      io,
    ).catch((error: unknown) => {
      throw listenError(NAME, port, error);
    });
    if (json) {
      writeJson(io, { kind: 'listening', url: listener.url });
    } else {
      const against =
        models.length > 0
          ? models.map((m) => `${m.title} (${m.events.length} events)`).join(', ')
          : 'Standard Webhooks, no contract';
      io.stderr.write(
        `listening on ${listener.url} — checking against ${against}` +
          `${secret === undefined ? '; no --secret: signatures are NOT checked' : ''}` +
          `${forward ? `; forwarding to ${forward}` : ''}${saveDir ? `; saving to ${saveDir}/` : ''}. Ctrl-C to stop.\n`,
      );
    }
    lifecycle.onListening?.(listener.url);
    await stopSignal(lifecycle);
    await listener.close();
    return 0;
  });
}
