/**
 * How long each provider keeps retrying (or allows redelivery of) one event, in milliseconds, plus a
 * safety margin. A dedupe key must outlive the sender's retries, so use these as `ttlMs` floors:
 * `redisStore(client, { ttlMs: RETRY_WINDOWS.stripe })`. Sources: each provider's webhook docs.
 */
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

// One constant per provider, so that a preset's receiver carries its own window, not the table.
/** Retries for up to 3 days in live mode; + 1 day margin. */
export const stripeWindow = 4 * DAY;
/** No automatic retries; deliveries from the past 3 days can be redelivered; + 1 day margin. */
export const githubWindow = 4 * DAY;
/** Retries for up to 48 hours (fewer on current API versions); + 1 day margin. */
export const shopifyWindow = 3 * DAY;
/** Events API retries 3 times within about an hour; + 1 day margin. */
export const slackWindow = 1 * DAY + 1 * HOUR;
/** Callback retries are short (configurable, seconds to minutes); + 1 day margin. */
export const twilioWindow = 1 * DAY + 1 * HOUR;
/** Interactions are not retried; + 1 day margin for manual replays. */
export const discordWindow = 1 * DAY + 1 * HOUR;
/** Standard Webhooks / Svix schedule spans about 28 hours (5 s … 10 h); + 1 day margin. */
export const svixWindow = 2 * DAY + 4 * HOUR;
export const standardWebhooksWindow = 2 * DAY + 4 * HOUR;
/** Retries 3 times (after 5, 30 and 90 minutes: about 2 hours); + 1 day margin. */
export const zoomWindow = 1 * DAY + 2 * HOUR;
/** Resends unacknowledged notifications under the same message id (no published window); + 1 day. */
export const twitchWindow = 1 * DAY + 1 * HOUR;
/** WhatsApp retries for up to 7 days (Messenger and Instagram for up to 36 hours); + 1 day margin. */
export const metaWindow = 8 * DAY;
/** Change notifications are retried for up to 4 hours; + 1 day margin. */
export const microsoftGraphWindow = 1 * DAY + 4 * HOUR;
/** Default retry policy: 30 attempts within a 24-hour event time-to-live; + 1 day margin. */
export const azureEventGridWindow = 2 * DAY;
/** Retries for up to 24 hours (square-retry-number counts them); + 1 day margin. */
export const squareWindow = 2 * DAY;
/** Live notifications are retried for up to 3 days; + 1 day margin. */
export const paddleWindow = 4 * DAY;
/** Failed deliveries are retried 3 times with backoff (minutes); + 1 day margin. */
export const lemonSqueezyWindow = 1 * DAY + 1 * HOUR;
/** Retried 3 times: after 1 minute, 1 hour and 6 hours; + 1 day margin. */
export const linearWindow = 1 * DAY + 7 * HOUR;
/** A failed notification is retried (delivery_attempts counts them) for minutes; + 1 day margin. */
export const intercomWindow = 1 * DAY + 1 * HOUR;
/** Retried up to 10 times over the next 24 hours; + 1 day margin. */
export const hubspotWindow = 2 * DAY;
/** Retried over 8 hours (10 min … 4 h apart); + 1 day margin. */
export const mailgunWindow = 1 * DAY + 8 * HOUR;
/** Event posts are retried for up to 24 hours; + 1 day margin. */
export const sendgridWindow = 2 * DAY;
/** Unanswered webhooks are retried with backoff for up to 24 hours; + 1 day margin. */
export const plaidWindow = 2 * DAY;
/** One retry after a 3-second timeout or an error answer; + 1 day margin. */
export const oktaWindow = 1 * DAY + 1 * HOUR;

export const RETRY_WINDOWS = {
  stripe: stripeWindow,
  github: githubWindow,
  shopify: shopifyWindow,
  slack: slackWindow,
  twilio: twilioWindow,
  discord: discordWindow,
  svix: svixWindow,
  'standard-webhooks': standardWebhooksWindow,
  zoom: zoomWindow,
  twitch: twitchWindow,
  meta: metaWindow,
  'microsoft-graph': microsoftGraphWindow,
  'azure-event-grid': azureEventGridWindow,
  square: squareWindow,
  paddle: paddleWindow,
  'lemon-squeezy': lemonSqueezyWindow,
  linear: linearWindow,
  intercom: intercomWindow,
  hubspot: hubspotWindow,
  mailgun: mailgunWindow,
  sendgrid: sendgridWindow,
  plaid: plaidWindow,
  okta: oktaWindow,
} as const satisfies Record<string, number>;

export type RetryWindowProvider = keyof typeof RETRY_WINDOWS;
