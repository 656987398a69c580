/** Request bodies of the management API: their schemas, and reading one (size cap, JSON, schema). */
import { z } from 'zod';
import { readRequestBody } from '../adapters/web.js';
import { WebhookError } from '../errors.js';

export type BodySchema<T> = z.ZodType<T>;

export const registerBody = z.strictObject({
  url: z.string().min(1).max(2048),
  events: z.array(z.string().min(1).max(200)).min(1).max(500),
  description: z.string().max(1000).optional(),
  rateLimit: z.number().positive().max(100_000).optional(),
});

export const updateBody = z.strictObject({
  url: registerBody.shape.url.optional(),
  events: registerBody.shape.events.optional(),
  description: z.string().max(1000).nullable().optional(),
  rateLimit: z.number().positive().max(100_000).nullable().optional(),
});

export const rotateBody = z.strictObject({
  overlapSeconds: z
    .number()
    .int()
    .min(0)
    .max(30 * 24 * 3600)
    .optional(),
});

const instant = z.union([z.iso.datetime({ offset: true }), z.number().int().nonnegative()]);
export const redeliverBody = z.union([
  z.strictObject({ messageId: z.string().min(1).max(200) }),
  z.strictObject({ from: instant.optional(), to: instant.optional() }),
]);

export const toMs = (value: string | number | undefined): number | undefined =>
  value === undefined ? undefined : typeof value === 'number' ? value : Date.parse(value);

export async function readJsonBody<T>(
  request: Request,
  schema: BodySchema<T>,
  maxBodyBytes: number,
  optional = false,
): Promise<T> {
  // Streamed with the cap (and a declared Content-Length checked first): a huge body is cut off at
  // `maxBodyBytes`, never buffered whole before the 413.
  const text = new TextDecoder().decode(await readRequestBody(request, maxBodyBytes));
  let value: unknown;
  if (text.trim() === '' && optional) value = {};
  else {
    try {
      value = JSON.parse(text);
    } catch {
      throw new WebhookError('invalid_body', 'Request body is not valid JSON');
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      path: issue.path.map((p) => `/${String(p)}`).join(''),
      message: issue.message,
    }));
    throw new WebhookError(
      'invalid_argument',
      issues.map((i) => `${i.path || '/'}: ${i.message}`).join('; '),
      {
        details: { issues },
      },
    );
  }
  return parsed.data;
}

/** zod's optional keys hold `undefined`; the manager's inputs are exact. */
export function withoutUndefined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
