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
  /** Retries 3 times (after 5, 30 and 90 minutes: about 2 hours); + 1 day margin. */
  zoom: 1 * DAY + 2 * HOUR,
  /** Resends unacknowledged notifications under the same message id (no published window); + 1 day. */
  twitch: 1 * DAY + 1 * HOUR,
  /** WhatsApp retries for up to 7 days (Messenger and Instagram for up to 36 hours); + 1 day margin. */
  meta: 8 * DAY,
  /** Change notifications are retried for up to 4 hours; + 1 day margin. */
  'microsoft-graph': 1 * DAY + 4 * HOUR,
  /** Default retry policy: 30 attempts within a 24-hour event time-to-live; + 1 day margin. */
  'azure-event-grid': 2 * DAY,
  /** Retries for up to 24 hours (square-retry-number counts them); + 1 day margin. */
  square: 2 * DAY,
  /** Live notifications are retried for up to 3 days; + 1 day margin. */
  paddle: 4 * DAY,
  /** Failed deliveries are retried 3 times with backoff (minutes); + 1 day margin. */
  'lemon-squeezy': 1 * DAY + 1 * HOUR,
  /** Retried 3 times: after 1 minute, 1 hour and 6 hours; + 1 day margin. */
  linear: 1 * DAY + 7 * HOUR,
  /** A failed notification is retried (delivery_attempts counts them) for minutes; + 1 day margin. */
  intercom: 1 * DAY + 1 * HOUR,
  /** Retried up to 10 times over the next 24 hours; + 1 day margin. */
  hubspot: 2 * DAY,
  /** Retried over 8 hours (10 min … 4 h apart); + 1 day margin. */
  mailgun: 1 * DAY + 8 * HOUR,
  /** Event posts are retried for up to 24 hours; + 1 day margin. */
  sendgrid: 2 * DAY,
  /** Unanswered webhooks are retried with backoff for up to 24 hours; + 1 day margin. */
  plaid: 2 * DAY,
  /** One retry after a 3-second timeout or an error answer; + 1 day margin. */
  okta: 1 * DAY + 1 * HOUR,
} as const satisfies Record<string, number>;

export type RetryWindowProvider = keyof typeof RETRY_WINDOWS;
