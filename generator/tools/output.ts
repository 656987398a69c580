/**
 * Output for the developer tools: injected streams (tests run the tools in-process), colours only on a
 * TTY without `NO_COLOR`, progress on stderr only on a TTY, and one error line (plus a JSON object on
 * stdout with `--json`) for every `GeneratorError`. What a tool prints from outside (requests,
 * captures, answers) goes through printable.ts: here for JSON lines and error lines, in each tool's
 * formatter for text.
 */
import { GeneratorError } from '../errors.js';
import { printable, printableJson } from './printable.js';

export interface OutputStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
}

/** Everything a tool touches outside itself. `now` and `sleep` are injectable for timing tests. */
export interface ToolIo {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly env: { readonly [name: string]: string | undefined };
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

export function processIo(): ToolIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

export interface Style {
  readonly enabled: boolean;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

/** Colours for `stream`: on when it is a TTY and `NO_COLOR` is unset/empty, or when `FORCE_COLOR` is set. */
export function createStyle(stream: OutputStream, env: ToolIo['env']): Style {
  const force = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0';
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  const enabled = force || (stream.isTTY === true && !noColor && env.TERM !== 'dumb');
  const paint = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    red: paint(31, 39),
    green: paint(32, 39),
    yellow: paint(33, 39),
    cyan: paint(36, 39),
    dim: paint(2, 22),
    bold: paint(1, 22),
  };
}

export interface Progress {
  update(done: number, note?: string): void;
  done(): void;
}

/** `label 3/10` rewritten in place on stderr; silent when stderr is not a TTY (logs stay clean). */
export function createProgress(io: ToolIo, label: string, total: number): Progress {
  if (io.stderr.isTTY !== true) return { update() {}, done() {} };
  let shown = false;
  return {
    update(done, note) {
      shown = true;
      io.stderr.write(`\r\u001b[2K${label} ${done}/${total}${note ? ` ${note}` : ''}`);
    },
    done() {
      if (shown) io.stderr.write('\r\u001b[2K');
      shown = false;
    },
  };
}

/** Writes one JSON document as a line (scripts read stdout line by line), safe on a terminal too. */
export function writeJson(io: ToolIo, value: unknown): void {
  io.stdout.write(`${printableJson(value)}\n`);
}

/**
 * Runs a tool body and turns a `GeneratorError` into one line on stderr (and `{ "error": … }` on
 * stdout with `--json`) with exit code 2; any other error propagates (the CLI reports it as internal).
 */
export async function runTool(
  command: string,
  io: ToolIo,
  json: boolean,
  body: () => Promise<number>,
): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (!(error instanceof GeneratorError)) throw error;
    io.stderr.write(`${formatToolError(command, error)}\n`);
    if (json) writeJson(io, { ok: false, error: error.toJSON() });
    return error.code === 'check_failed' ? 1 : 2;
  }
}

/** `gen-webhooks send: file#/pointer: message (expected …) [code]` — one line, command named once. */
export function formatToolError(command: string, error: GeneratorError): string {
  const prefix = `${command}: `;
  const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  const where = error.file ? `${error.file}${error.pointer !== undefined ? `#${error.pointer}` : ''}: ` : '';
  const expected = error.expected ? ` (expected ${error.expected})` : '';
  // Messages can quote a capture or a request: one line, no controls.
  return printable(
    `gen-webhooks ${command}: ${where}${message}${expected} [${error.code}]`.replace(/\r?\n/g, ' '),
  );
}

/** Shortens text for display: at most `max` characters, with the number left out said. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** `12ms`, `1.25s`, `2m 05s`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
}
