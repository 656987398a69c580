/**
 * Capture files: one received delivery as `listen` saw it (raw header pairs in order, the body as
 * base64 so the bytes survive exactly, and the verdict), which `replay --from` sends again unchanged.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { GeneratorError } from '../errors.js';

export const CAPTURE_FORMAT = 'gen-webhooks.capture/v1';

export interface CheckResult {
  /** e.g. `signature`, `timestamp`, `envelope`, `event`, `payload`. */
  readonly name: string;
  readonly ok: boolean;
  /** Passed only because it could not be checked (no secret, no contract). */
  readonly skipped?: boolean;
  /** Why it failed (or what it found when it passed). */
  readonly detail: string;
  /** Header or JSON pointer at fault. */
  readonly at?: string;
}

export interface Verdict {
  readonly ok: boolean;
  /** Status `listen` answered with. */
  readonly status: number;
  readonly checks: readonly CheckResult[];
}

export interface CapturedDelivery {
  readonly format: typeof CAPTURE_FORMAT;
  readonly receivedAt: string;
  readonly method: string;
  /** Path and query as received. */
  readonly path: string;
  /** Header pairs exactly as received (names keep their case, order kept, repeats kept). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly bodyBase64: string;
  readonly contract?: string;
  readonly event?: string;
  readonly id?: string;
  readonly verdict: Verdict;
}

const captureSchema = z.object({
  format: z.literal(CAPTURE_FORMAT),
  receivedAt: z.string(),
  method: z.string(),
  path: z.string(),
  headers: z.array(z.tuple([z.string(), z.string()])),
  bodyBase64: z.base64(),
  contract: z.string().optional(),
  event: z.string().optional(),
  id: z.string().optional(),
  verdict: z.object({
    ok: z.boolean(),
    status: z.number().int(),
    checks: z.array(
      z.object({
        name: z.string(),
        ok: z.boolean(),
        skipped: z.boolean().optional(),
        detail: z.string(),
        at: z.string().optional(),
      }),
    ),
  }),
});

export function captureBody(capture: CapturedDelivery): Buffer {
  return Buffer.from(capture.bodyBase64, 'base64');
}

/** Node's `rawHeaders` (`[name, value, name, value, …]`) as pairs. */
export function headerPairs(rawHeaders: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    pairs.push([rawHeaders[i] ?? '', rawHeaders[i + 1] ?? '']);
  return pairs;
}

function safePart(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 64) || 'unknown';
}

/**
 * Writes `capture` into `dir` as `<time>-<event>-<id>.json` (written to a temp name, then renamed, so
 * a reader never sees half a file). Returns the path.
 */
export function saveCapture(dir: string, capture: CapturedDelivery, sequence: number): string {
  mkdirSync(dir, { recursive: true });
  const time = capture.receivedAt.replace(/[:.]/g, '-');
  const name = `${time}-${String(sequence).padStart(4, '0')}-${safePart(capture.event ?? 'unknown')}-${safePart(capture.id ?? 'no-id')}.json`;
  const file = join(dir, name);
  const temp = `${file}.tmp-${process.pid}`;
  writeFileSync(temp, `${JSON.stringify(capture, null, 2)}\n`);
  renameSync(temp, file);
  return file;
}

export function loadCapture(file: string): CapturedDelivery {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new GeneratorError('file_not_found', `cannot read capture file: ${(error as Error).message}`, {
      file,
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new GeneratorError('invalid_json', `capture file is not JSON: ${(error as Error).message}`, {
      file,
      cause: error,
    });
  }
  const parsed = captureSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new GeneratorError(
      'invalid_argument',
      `not a gen-webhooks capture: ${issue?.message ?? 'invalid'}`,
      {
        file,
        pointer: issue ? `/${issue.path.map(String).join('/')}` : '',
        expected: `a file saved by \`gen-webhooks listen --save-dir\` (format ${CAPTURE_FORMAT})`,
      },
    );
  }
  return parsed.data as CapturedDelivery;
}
