/**
 * `gen-webhooks listen`: a local receiver for development. Every POST is checked (see inspect.ts),
 * printed with the result of each check, saved as a capture file for `replay --from`, and optionally
 * forwarded — exact bytes and end-to-end headers — to the app being developed.
 *
 * Answers: a valid delivery gets 200 (or, when forwarding, the app's own status and body, so the
 * sender sees what the app did); an invalid one gets the status of its first failed check (401 bad
 * signature, 400 bad timestamp/envelope/payload) and is not forwarded unless `forwardInvalid` is set.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { CAPTURE_FORMAT, type CapturedDelivery, headerPairs, saveCapture } from './capture.js';
import { endToEndHeaders, type HttpResponse, sendHttp } from './http-client.js';
import { type Inspection, type InspectionTarget, inspectRequest } from './inspect.js';
import { listenLocal, readBodyCapped } from './local-server.js';
import { createStyle, formatMs, type Style, type ToolIo, truncate, writeJson } from './output.js';
import { printable, printableDeep, printableJson } from './printable.js';

export interface ListenOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  readonly targets: readonly InspectionTarget[];
  /** Directory for capture files; none when absent. */
  readonly saveDir?: string;
  /** URL of the app to forward deliveries to. */
  readonly forward?: string;
  /** Forward deliveries that failed a check too (to test the app's own rejection). */
  readonly forwardInvalid?: boolean;
  /** Time limit of a forward, ms. Default 10 000. */
  readonly forwardTimeoutMs?: number;
  readonly json?: boolean;
  /** Bodies larger than this are answered 413. Default 10 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * Public URL the sender posts to (e.g. a tunnel), for schemes that sign the URL (Twilio); request
   * paths are resolved against it. Default: this listener's own address.
   */
  readonly publicUrl?: string;
  /** Lines of the pretty-printed body shown per delivery (text output). Default 40; 0 hides it. */
  readonly bodyLines?: number;
}

export interface ForwardResult {
  readonly url: string;
  readonly status?: number;
  readonly durationMs?: number;
  readonly error?: string;
}

export interface ListenRecord {
  readonly receivedAt: string;
  readonly method: string;
  readonly path: string;
  readonly inspection: Inspection;
  /** Status `listen` answered with. */
  readonly status: number;
  readonly forwarded?: ForwardResult;
  readonly savedTo?: string;
}

export interface Listener {
  readonly url: string;
  readonly port: number;
  /** Deliveries handled so far, in arrival order. */
  readonly records: readonly ListenRecord[];
  close(): Promise<void>;
}

export async function startListener(options: ListenOptions, io: ToolIo): Promise<Listener> {
  const now = io.now ?? Date.now;
  const style = createStyle(io.stdout, io.env);
  const maxBodyBytes = options.maxBodyBytes ?? 10 * 1024 * 1024;
  const records: ListenRecord[] = [];
  let sequence = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse, base: string): Promise<void> => {
    const path = req.url ?? '/';
    if (req.method === 'GET' || req.method === 'HEAD') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('gen-webhooks listen: POST webhook deliveries here.\n');
      return;
    }
    const receivedAt = new Date(now()).toISOString();
    const body = await readBodyCapped(req, res, maxBodyBytes);
    if (body === undefined) return;
    const inspection = await inspectRequest(
      { headers: req.headers, body, url: new URL(path, base).href },
      options.targets,
      now,
    );
    const rawHeaders = headerPairs(req.rawHeaders);

    let forwarded: ForwardResult | undefined;
    let appResponse: HttpResponse | undefined;
    if (options.forward && (inspection.ok || options.forwardInvalid)) {
      const outcome = await forward(
        options.forward,
        req.method ?? 'POST',
        rawHeaders,
        body,
        options.forwardTimeoutMs ?? 10_000,
      );
      forwarded = outcome.result;
      appResponse = outcome.response;
    }
    let answer: { status: number; headers: Record<string, string>; body: Buffer | string };
    if (!inspection.ok) {
      // An invalid delivery gets its verdict even when it was forwarded (--forward-invalid).
      const failed = inspection.checks.find((c) => !c.ok);
      answer = {
        status: inspection.status,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ error: { check: failed?.name, detail: failed?.detail, at: failed?.at } }),
      };
    } else if (appResponse) {
      answer = { status: appResponse.status, headers: contentType(appResponse), body: appResponse.body };
    } else if (forwarded) {
      answer = {
        status: 502,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ error: `forward to ${options.forward} failed: ${forwarded.error}` }),
      };
    } else {
      answer = {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ok: true, event: inspection.event, id: inspection.id }),
      };
    }

    let savedTo: string | undefined;
    if (options.saveDir) {
      sequence += 1;
      const capture: CapturedDelivery = {
        format: CAPTURE_FORMAT,
        receivedAt,
        method: req.method ?? 'POST',
        path,
        headers: rawHeaders,
        bodyBase64: body.toString('base64'),
        ...(inspection.contract ? { contract: inspection.contract } : {}),
        ...(inspection.event ? { event: inspection.event } : {}),
        ...(inspection.id ? { id: inspection.id } : {}),
        verdict: { ok: inspection.ok, status: answer.status, checks: inspection.checks },
      };
      savedTo = saveCapture(options.saveDir, capture, sequence);
    }
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);

    const record: ListenRecord = {
      receivedAt,
      method: req.method ?? 'POST',
      path,
      inspection,
      status: answer.status,
      ...(forwarded ? { forwarded } : {}),
      ...(savedTo ? { savedTo } : {}),
    };
    records.push(record);
    if (options.json) writeJson(io, { kind: 'delivery', ...record, body: bodyForJson(body) });
    else {
      // Everything in a record may come from the request: escaped once, here, before it is formatted.
      const shown = printableDeep(record, { multiline: false });
      io.stdout.write(formatRecord(shown, style) + formatBody(body, options.bodyLines ?? 40, style));
    }
  };

  let base = 'http://127.0.0.1/';
  const server: Server = createServer((req, res) => {
    handle(req, res, base).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      const what = printable(`${req.method} ${req.url}: ${message}`, { multiline: false });
      io.stderr.write(`gen-webhooks listen: could not handle ${what}\n`);
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: message }));
      }
    });
  });
  const { url, port } = await listenLocal(server, options.port, options.host);
  base = options.publicUrl ?? `${url}/`;
  return {
    url,
    port,
    records,
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function contentType(response: HttpResponse): Record<string, string> {
  const type = response.headers['content-type'];
  return type ? { 'content-type': type } : {};
}

async function forward(
  url: string,
  method: string,
  rawHeaders: ReadonlyArray<readonly [string, string]>,
  body: Buffer,
  timeoutMs: number,
): Promise<{ result: ForwardResult; response?: HttpResponse }> {
  try {
    const response = await sendHttp('listen', {
      url,
      method,
      headers: endToEndHeaders(rawHeaders),
      body,
      timeoutMs,
    });
    return { result: { url, status: response.status, durationMs: response.durationMs }, response };
  } catch (error) {
    return {
      result: { url, error: error instanceof Error ? error.message.replace(/^listen: /, '') : String(error) },
    };
  }
}

/** The body for scripts: parsed JSON when it is JSON, else its text (long bodies shortened). */
function bodyForJson(body: Buffer): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return truncate(text, 10_000);
  }
}

/** The body pretty-printed for people, indented under the checks, at most `maxLines` lines. */
function formatBody(body: Buffer, maxLines: number, style: Style): string {
  if (maxLines <= 0 || body.length === 0) return '';
  const text = body.toString('utf8');
  let pretty: string;
  try {
    // JSON escapes its strings' controls itself; printableJson adds the ones it leaves raw.
    pretty = printableJson(JSON.parse(text), 2);
  } catch {
    pretty = printable(text);
  }
  const lines = pretty.split('\n');
  const shown = lines.slice(0, maxLines).map((line) => `      ${truncate(line, 200)}`);
  if (lines.length > maxLines) shown.push(`      … ${lines.length - maxLines} more lines`);
  return `${style.dim(shown.join('\n'))}\n`;
}

function formatRecord(record: ListenRecord, style: Style): string {
  const { inspection } = record;
  const mark = inspection.ok ? style.green('✔') : style.red('✘');
  const what = [
    inspection.event ? style.bold(inspection.event) : style.dim('(unknown event)'),
    inspection.id ?? '',
  ]
    .filter(Boolean)
    .join(' ');
  const contract = inspection.contract ? style.dim(` (${inspection.contract})`) : '';
  const status = record.status < 300 ? style.green(String(record.status)) : style.red(String(record.status));
  const lines = [
    `${mark} ${style.dim(record.receivedAt)} ${record.method} ${record.path} ${what}${contract} → ${status}`,
  ];
  for (const check of inspection.checks) {
    const icon = !check.ok ? style.red('✘') : check.skipped ? style.yellow('–') : style.green('✔');
    const at = check.at ? style.dim(` at ${check.at}`) : '';
    lines.push(`    ${icon} ${check.name.padEnd(10)} ${truncate(check.detail, 300)}${at}`);
  }
  if (record.forwarded) {
    const f = record.forwarded;
    lines.push(
      f.status === undefined
        ? `    ${style.red('→')} forward to ${f.url} failed: ${f.error}`
        : `    → forwarded to ${f.url}: ${f.status < 300 ? style.green(String(f.status)) : style.red(String(f.status))} in ${formatMs(f.durationMs ?? 0)}`,
    );
  }
  if (record.savedTo) lines.push(style.dim(`    saved ${record.savedTo}`));
  return `${lines.join('\n')}\n`;
}
