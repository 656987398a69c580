/** Reading a posted HTML form: urlencoded only, size-capped, as `URLSearchParams`. */
import { readRequestBody } from '../adapters/web.js';
import { WebhookError } from '../errors.js';

export async function readForm(request: Request, maxBytes: number): Promise<URLSearchParams> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new WebhookError('invalid_body', 'Expected a form (application/x-www-form-urlencoded)', {
      status: 415,
      details: { header: 'content-type' },
    });
  }
  const bytes = await readRequestBody(request, maxBytes);
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

/** A trimmed text field, at most `max` characters (longer is an `invalid_argument` naming the field). */
export function textField(form: URLSearchParams, name: string, label: string, max: number): string {
  const value = (form.get(name) ?? '').trim();
  if (value.length > max) {
    throw new WebhookError('invalid_argument', `${label} is longer than ${max} characters`, {
      details: { field: name },
    });
  }
  return value;
}

/** The values of a repeated field (checkboxes), de-duplicated, at most `max` of them. */
export function listField(form: URLSearchParams, name: string, label: string, max: number): string[] {
  const values = [...new Set(form.getAll(name).filter((v) => v !== ''))];
  if (values.length > max) {
    throw new WebhookError('invalid_argument', `Select at most ${max} ${label}`, {
      details: { field: name },
    });
  }
  return values;
}
