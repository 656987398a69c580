import { WebhookError } from '../errors.js';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Table/schema names are interpolated into SQL, so only plain identifiers are accepted. */
export function sqlIdentifier(value: string, what: string): string {
  if (!IDENTIFIER.test(value)) {
    throw new WebhookError(
      'invalid_config',
      `${what} must be a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*), got "${value}"`,
    );
  }
  return value;
}
