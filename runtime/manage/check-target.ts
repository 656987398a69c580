/**
 * The URL check at registration and on a URL change: the URL policy, then (unless turned off) the
 * host resolved and every address checked. The caller learns only that the host is not public — a
 * name that does not resolve gets the very answer of one that resolves inward, so refusals cannot map
 * internal DNS — while the operator's logger gets what the name resolved to.
 */
import { type CompiledUrlPolicy, checkUrl, notPublic, resolveTarget } from '../deliver/url-policy.js';
import { isWebhookError } from '../errors.js';

/** The pino / console shape, warnings only (a receiver's `logger` fits). */
export interface ManagerLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface CheckTargetOptions {
  /** Resolve the host and check its addresses (the manager's `resolveOnRegister`). */
  readonly resolve: boolean;
  /** Gets each refusal with the address; default the console. */
  readonly logger?: ManagerLogger | undefined;
}

export async function checkRegisteredUrl(
  url: string,
  policy: CompiledUrlPolicy,
  options: CheckTargetOptions,
): Promise<void> {
  try {
    if (options.resolve) await resolveTarget(url, policy);
    else checkUrl(url, policy);
  } catch (error) {
    if (!isWebhookError(error, 'blocked_address') && !isWebhookError(error, 'dns_failure')) throw error;
    // The operator's version: the resolved address lives in the refusal's cause.
    const full = isWebhookError(error.cause) ? error.cause : error;
    warn(
      options.logger ?? console,
      { ...full.details, code: full.code },
      `Endpoint URL refused: ${full.message}`,
    );
    if (error.code === 'dns_failure') throw notPublic(String(error.details.host), { cause: error });
    throw error;
  }
}

function warn(logger: ManagerLogger, fields: Record<string, unknown>, message: string): void {
  try {
    logger.warn(fields, message);
  } catch {
    // A failing logger must not turn a refusal into a 500.
  }
}
