/**
 * The runtime's one error class. Errors are data: `code` is a closed union, `status` is the HTTP
 * status a receiver should answer with, and `details` carries the header/field at fault.
 */

export type WebhookErrorCode =
  // verification (receiver side)
  | 'missing_header'
  | 'malformed_header'
  | 'invalid_signature'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'invalid_secret'
  | 'invalid_key'
  | 'invalid_body'
  | 'parsed_body'
  | 'body_consumed'
  | 'invalid_payload'
  | 'invalid_envelope'
  | 'unknown_event'
  | 'payload_too_large'
  // dedupe / processing
  | 'in_progress'
  | 'handler_failed'
  | 'store_error'
  /** The handler succeeded but its done record could not be written (reported, never answered). */
  | 'completion_failed'
  // delivery (sender side)
  | 'invalid_url'
  | 'insecure_url'
  | 'blocked_address'
  | 'dns_failure'
  | 'connection_failed'
  | 'timeout'
  | 'redirect'
  | 'http_error'
  | 'endpoint_disabled'
  /** Endpoint verification failed: the endpoint did not acknowledge the challenge or handshake. */
  | 'endpoint_unverified'
  | 'tenant_required'
  | 'not_found'
  | 'invalid_argument'
  | 'invalid_config';

/** Default HTTP status a receiver answers for each code. */
export const STATUS_BY_CODE: Readonly<Record<WebhookErrorCode, number>> = {
  missing_header: 400,
  malformed_header: 400,
  invalid_signature: 401,
  timestamp_too_old: 400,
  timestamp_too_new: 400,
  invalid_secret: 500,
  invalid_key: 500,
  invalid_body: 400,
  parsed_body: 500,
  body_consumed: 500,
  invalid_payload: 400,
  invalid_envelope: 400,
  unknown_event: 400,
  payload_too_large: 413,
  in_progress: 409,
  handler_failed: 500,
  store_error: 503,
  completion_failed: 503,
  invalid_url: 400,
  insecure_url: 400,
  blocked_address: 400,
  dns_failure: 502,
  connection_failed: 502,
  timeout: 504,
  redirect: 502,
  http_error: 502,
  endpoint_disabled: 409,
  endpoint_unverified: 422,
  tenant_required: 400,
  not_found: 404,
  invalid_argument: 400,
  invalid_config: 500,
};

export interface WebhookErrorDetails {
  /** Header at fault, lower-case (e.g. `webhook-signature`). */
  header?: string;
  /** JSON pointer into the payload at fault (e.g. `/data/petId`). */
  pointer?: string;
  /** Validation issues, when `code` is `invalid_payload`. */
  issues?: ReadonlyArray<{ readonly path: string; readonly message: string }>;
  [key: string]: unknown;
}

/** Details of `invalid_config`: the option at fault and what it takes. */
export interface InvalidConfigDetails extends WebhookErrorDetails {
  /** The option at fault (`ackFast`, or dotted when nested: `retry.maxAttempts`). */
  option?: string;
  /** For a renamed option, what to write instead (e.g. `` `ackFast: false` ``). */
  replacement?: string;
  /** What the option takes (for an unknown option key: the keys the factory knows). */
  expected?: unknown;
}

/** The details each code carries beyond the common ones (narrowed by `isWebhookError(e, code)`). */
export interface WebhookErrorDetailsByCode {
  invalid_config: InvalidConfigDetails;
}

export type DetailsOf<C extends WebhookErrorCode> = C extends keyof WebhookErrorDetailsByCode
  ? WebhookErrorDetailsByCode[C]
  : WebhookErrorDetails;

export interface WebhookErrorOptions<C extends WebhookErrorCode = WebhookErrorCode> {
  status?: number;
  details?: DetailsOf<C>;
  cause?: unknown;
}

export class WebhookError<C extends WebhookErrorCode = WebhookErrorCode> extends Error {
  override readonly name = 'WebhookError';
  readonly code: C;
  readonly status: number;
  readonly details: DetailsOf<C>;

  constructor(code: C, message: string, options: WebhookErrorOptions<C> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? STATUS_BY_CODE[code];
    this.details = options.details ?? ({} as DetailsOf<C>);
  }

  toJSON(): { code: C; message: string; status: number; details: DetailsOf<C> } {
    return { code: this.code, message: this.message, status: this.status, details: this.details };
  }
}

export function isWebhookError<C extends WebhookErrorCode = WebhookErrorCode>(
  value: unknown,
  code?: C,
): value is WebhookError<C> {
  return value instanceof WebhookError && (code === undefined || value.code === code);
}
