/**
 * `gen-webhooks replay`: sends THE SAME delivery N times — same id, same body bytes; the signature
 * timestamp either fixed at the first signing (`--fixed-timestamp`: byte-identical requests) or fresh
 * per attempt (re-signed, id kept: what a sender's retry looks like) — sequentially or concurrently,
 * and judges from the answers whether the receiver deduplicates (see idempotency.ts for the signal).
 * `--from capture.json` replays a delivery saved by `listen`, exact headers and bytes.
 */
import {
  booleanFlag,
  listFlag,
  parseDuration,
  parseHeaderFlag,
  parseInteger,
  parseToolArgs,
  parseUrl,
  requiredFlag,
  stringFlag,
} from './args.js';
import { captureBody, loadCapture } from './capture.js';
import { findEvent, loadModel, requireSecret } from './contract.js';
import { createScheme, planDelivery, signDelivery } from './delivery.js';
import { endToEndHeaders, sendHttp } from './http-client.js';
import { type AttemptAnswer, type IdempotencyVerdict, judgeIdempotency } from './idempotency.js';
import {
  createProgress,
  createStyle,
  formatMs,
  runTool,
  type Style,
  type ToolIo,
  truncate,
  writeJson,
} from './output.js';
import { choosePayload } from './payload.js';
import { printableDeep } from './printable.js';
import { usageError } from './usage.js';
import { createPayloadValidator } from './validate.js';

const NAME = 'replay';
const MAX_TIMES = 10_000;

export const REPLAY_OPTIONS = {
  url: { type: 'string' },
  secret: { type: 'string' },
  times: { type: 'string' },
  concurrency: { type: 'string' },
  'fixed-timestamp': { type: 'boolean' },
  from: { type: 'string' },
  resign: { type: 'boolean' },
  data: { type: 'string' },
  header: { type: 'string', multiple: true },
  id: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const REPLAY_HELP = `Usage: gen-webhooks replay <contract> <event> --url <url> --secret <secret> [options]
       gen-webhooks replay --from <capture.json> --url <url> [options]

Sends the same signed delivery (same id, same body) N times and checks that the receiver
processes it once: every attempt must be answered 2xx, and the receiver should say which attempts
were duplicates — response header "webhook-duplicate: true", or a JSON body {"status":
"already processed"} (what gen-webhooks receivers answer), or a body containing "already
processed". A 409 saying "in_progress" (a concurrent duplicate declined) also counts as one.

Options:
  --url <url>             Where to send (required)
  --secret <secret>       Signing secret (or GEN_WEBHOOKS_SECRET)
  --times <n>             How many times to send (default 10)
  --concurrency <n>       Attempts in flight at once (default 1: one after another)
  --fixed-timestamp       Sign once and send byte-identical requests (default: re-sign every
                          attempt with a fresh timestamp, keeping the id — like a sender's retry)
  --from <capture.json>   Replay a delivery saved by \`gen-webhooks listen --save-dir\`: the exact
                          captured headers and bytes (no <contract> <event> needed)
  --resign                With --from and <contract>: re-sign the captured body (id kept) so an
                          old capture passes the timestamp window
  --data <file.json>      Payload (default: the contract's first valid example, else synthesised)
  --header <k:v>          Extra request header; repeatable
  --id <id>               Delivery id (default: a new msg_… id)
  --timeout <duration>    Time limit per attempt (default 5s)
  --json                  Print one JSON object instead of text
  -h, --help              Show this help

Exit codes: 0 the receiver behaved idempotently, 1 it did not (or rejected the delivery),
            2 bad arguments or the URL is unreachable.`;

interface Source {
  readonly label: string;
  readonly event?: string;
  readonly id?: string;
  readonly method: string;
  readonly body: Uint8Array;
  /** Headers for one attempt signed at `timestamp` (Unix seconds). */
  headers(timestamp: number): Promise<ReadonlyArray<readonly [string, string]>>;
  /** Whether `headers` re-signs (false: the captured headers are sent as they are). */
  readonly signs: boolean;
}

export function replayCommand(argv: readonly string[], io: ToolIo): Promise<number> {
  const json = argv.includes('--json');
  return runTool(NAME, io, json, async () => {
    const args = parseToolArgs(NAME, argv, REPLAY_OPTIONS);
    const url = parseUrl(NAME, 'url', requiredFlag(NAME, args, 'url', 'where to send the deliveries'));
    const times = parseInteger(NAME, 'times', stringFlag(args, 'times') ?? '10', 1, MAX_TIMES);
    const concurrency = parseInteger(
      NAME,
      'concurrency',
      stringFlag(args, 'concurrency') ?? '1',
      1,
      MAX_TIMES,
    );
    const timeoutMs = parseDuration(NAME, 'timeout', stringFlag(args, 'timeout') ?? '5s');
    const fixedTimestamp = booleanFlag(args, 'fixed-timestamp');
    const now = io.now ?? Date.now;
    const source = await resolveSource(args, io, url.href);

    let fixedHeaders: ReadonlyArray<readonly [string, string]> | undefined;
    if (fixedTimestamp || !source.signs) fixedHeaders = await source.headers(Math.floor(now() / 1000));

    const progress = createProgress(io, `replay ${source.label}`, times);
    const answers: AttemptAnswer[] = new Array(times);
    const networkErrors: unknown[] = [];
    let next = 0;
    let done = 0;
    const worker = async () => {
      for (let index = next++; index < times; index = next++) {
        const headers = fixedHeaders ?? (await source.headers(Math.floor(now() / 1000)));
        try {
          const res = await sendHttp(NAME, {
            url: url.href,
            method: source.method,
            headers,
            body: source.body,
            timeoutMs,
          });
          answers[index] = {
            attempt: index + 1,
            status: res.status,
            headers: res.headers,
            body: res.body.toString('utf8'),
            durationMs: res.durationMs,
          };
        } catch (error) {
          networkErrors.push(error);
          answers[index] = {
            attempt: index + 1,
            error: error instanceof Error ? error.message.replace(/^replay: /, '') : String(error),
          };
        }
        done += 1;
        progress.update(done);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, times) }, worker));
    progress.done();
    // Nothing answered at all: a reachability problem, not a verdict on the receiver.
    if (networkErrors.length === times) throw networkErrors[0];

    const verdict = judgeIdempotency(answers);
    const mode = {
      times,
      concurrency: Math.min(concurrency, times),
      timestamp: source.signs ? (fixedTimestamp ? 'fixed' : 'fresh') : 'captured',
    };
    if (json) {
      writeJson(io, {
        ok: verdict.ok,
        summary: verdict.summary,
        url: url.href,
        source: source.label,
        event: source.event,
        id: source.id,
        ...mode,
        processed: verdict.processed,
        duplicates: verdict.duplicates,
        inProgress: verdict.inProgress,
        failed: verdict.failed,
        statuses: verdict.statuses,
        attempts: verdict.attempts.map((a) => ({
          attempt: a.attempt,
          status: a.status,
          outcome: a.outcome,
          signal: a.signal,
          durationMs: a.durationMs === undefined ? undefined : Math.round(a.durationMs * 10) / 10,
          error: a.error,
          body: a.body === undefined ? undefined : truncate(a.body, 200),
        })),
      });
    } else {
      // The capture's event/id and the receiver's errors are outside text.
      const shown = printableDeep({ label: source.label, id: source.id, verdict }, { multiline: false });
      io.stdout.write(formatReplay(shown, url.href, mode, shown.verdict, createStyle(io.stdout, io.env)));
    }
    return verdict.ok ? 0 : 1;
  });
}

async function resolveSource(
  args: ReturnType<typeof parseToolArgs>,
  io: ToolIo,
  url: string,
): Promise<Source> {
  const from = stringFlag(args, 'from');
  const [contractFile, eventName, extra] = args.positionals;
  const extraHeaders = listFlag(args, 'header').map((h) => parseHeaderFlag(NAME, h));
  const now = io.now ?? Date.now;

  if (from !== undefined) {
    const capture = loadCapture(from);
    const body = captureBody(capture);
    const captured = [...endToEndHeaders(capture.headers), ...extraHeaders];
    const base = {
      label: capture.event ?? from,
      method: capture.method,
      body,
      ...(capture.event ? { event: capture.event } : {}),
      ...(capture.id ? { id: capture.id } : {}),
    };
    if (!booleanFlag(args, 'resign')) {
      if (contractFile !== undefined)
        throw usageError(
          NAME,
          `--from replays the capture as saved; drop ${JSON.stringify(contractFile)} or add --resign`,
        );
      return { ...base, signs: false, headers: async () => captured };
    }
    if (contractFile === undefined || eventName !== undefined)
      throw usageError(NAME, '--resign needs exactly one <contract> to sign with');
    if (!capture.id) throw usageError(NAME, `${from} has no delivery id to keep; it cannot be re-signed`);
    const model = await loadModel(contractFile);
    const scheme = createScheme(NAME, model, requireSecret(NAME, model, stringFlag(args, 'secret'), io.env));
    const id = capture.id;
    return {
      ...base,
      signs: true,
      headers: (timestamp) => signDelivery(NAME, scheme, { id, body, headers: captured }, timestamp, url),
    };
  }

  if (booleanFlag(args, 'resign')) throw usageError(NAME, '--resign only applies to --from');
  if (contractFile === undefined || eventName === undefined || extra !== undefined) {
    throw usageError(
      NAME,
      extra === undefined
        ? 'expected <contract> <event> (or --from capture.json)'
        : `unexpected argument ${JSON.stringify(extra)}`,
    );
  }
  const model = await loadModel(contractFile);
  const event = findEvent(model, eventName);
  const secret = requireSecret(NAME, model, stringFlag(args, 'secret'), io.env);
  const payload = choosePayload(NAME, model, event, createPayloadValidator(model), stringFlag(args, 'data'));
  const id = stringFlag(args, 'id');
  const delivery = planDelivery(NAME, {
    model,
    event,
    payload: payload.value,
    extraHeaders,
    now,
    ...(id ? { id } : {}),
  });
  const scheme = createScheme(NAME, model, secret);
  return {
    label: event.name,
    event: event.name,
    id: delivery.id,
    method: 'POST',
    body: delivery.body,
    signs: true,
    headers: (timestamp) => signDelivery(NAME, scheme, delivery, timestamp, url),
  };
}

function formatReplay(
  source: Pick<Source, 'label' | 'id'>,
  url: string,
  mode: { times: number; concurrency: number; timestamp: string },
  verdict: IdempotencyVerdict,
  style: Style,
): string {
  const how = mode.concurrency > 1 ? `${mode.concurrency} at a time` : 'one after another';
  const stamp =
    mode.timestamp === 'fixed'
      ? 'signed once (identical requests)'
      : mode.timestamp === 'fresh'
        ? 're-signed with a fresh timestamp each time, same id and body'
        : 'captured headers and bytes as saved';
  const lines = [
    `${style.bold('replay')} ${source.label}${source.id ? ` ${source.id}` : ''} → ${url}`,
    style.dim(`  ${mode.times} attempts, ${how}; ${stamp}`),
  ];
  for (const a of verdict.attempts) {
    const status =
      a.status === undefined
        ? style.red(`error: ${a.error ?? 'no response'}`)
        : a.outcome === 'failed'
          ? style.red(String(a.status))
          : style.green(String(a.status));
    const outcome =
      a.outcome === 'duplicate'
        ? style.cyan(`duplicate${a.signal === 'in-progress' ? ' (in progress)' : ` (${a.signal})`}`)
        : a.outcome === 'processed'
          ? 'processed'
          : style.red('failed');
    const time = a.durationMs === undefined ? '' : ` in ${formatMs(a.durationMs)}`;
    lines.push(`  #${String(a.attempt).padEnd(4)} ${status}${time}  ${outcome}`);
  }
  lines.push(verdict.ok ? style.green(`✔ ${verdict.summary}`) : style.yellow(`⚠ ${verdict.summary}`));
  return `${lines.join('\n')}\n`;
}
