/**
 * How long each provider keeps retrying (or allows redelivery of) one event, in milliseconds, plus a
 * safety margin. A dedupe key must outlive the sender's retries, so use these as `ttlMs` floors:
 * `redisStore(client, { ttlMs: RETRY_WINDOWS.stripe })`. Sources: each provider's webhook docs.
 */
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

export const RETRY_WINDOWS = {
  /** Retries for up to 3 days in live mode; + 1 day margin. */
  stripe: 4 * DAY,
  /** No automatic retries; deliveries from the past 3 days can be redelivered; + 1 day margin. */
  github: 4 * DAY,
  /** Retries for up to 48 hours (fewer on current API versions); + 1 day margin. */
  shopify: 3 * DAY,
  /** Events API retries 3 times within about an hour; + 1 day margin. */
  slack: 1 * DAY + 1 * HOUR,
  /** Callback retries are short (configurable, seconds to minutes); + 1 day margin. */
  twilio: 1 * DAY + 1 * HOUR,
  /** Interactions are not retried; + 1 day margin for manual replays. */
  discord: 1 * DAY + 1 * HOUR,
  /** Standard Webhooks / Svix schedule spans about 28 hours (5 s … 10 h); + 1 day margin. */
  svix: 2 * DAY + 4 * HOUR,
  'standard-webhooks': 2 * DAY + 4 * HOUR,
} as const satisfies Record<string, number>;

export type RetryWindowProvider = keyof typeof RETRY_WINDOWS;
