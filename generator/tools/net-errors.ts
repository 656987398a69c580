/**
 * Network failures as one line a person can act on: `ECONNREFUSED` means nothing listens on that
 * port, `EADDRINUSE` means another process already does, and so on.
 */
import { GeneratorError } from '../errors.js';

function errorCode(error: unknown): string | undefined {
  // fetch/undici and AggregateError (happy eyeballs) wrap the socket error.
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors[0] instanceof Error) {
      current = errors[0];
      continue;
    }
    current = current.cause;
  }
  return undefined;
}

/** Explains why a request to `url` failed. */
export function requestError(command: string, url: string, error: unknown): GeneratorError {
  const code = errorCode(error);
  const { host } = new URL(url);
  const reasons: Record<string, string> = {
    ECONNREFUSED: `connection refused by ${host} (ECONNREFUSED): nothing is listening there; is the app running on that port?`,
    ENOTFOUND: `host ${new URL(url).hostname} not found (ENOTFOUND): check the URL's host name`,
    EAI_AGAIN: `DNS lookup for ${new URL(url).hostname} failed temporarily (EAI_AGAIN)`,
    ECONNRESET: `${host} closed the connection before answering (ECONNRESET)`,
    EHOSTUNREACH: `${host} is unreachable (EHOSTUNREACH)`,
    ENETUNREACH: `network unreachable for ${host} (ENETUNREACH)`,
    ETIMEDOUT: `connecting to ${host} timed out (ETIMEDOUT)`,
    UND_ERR_SOCKET: `${host} closed the connection before answering`,
    CERT_HAS_EXPIRED: `${host} presented an expired TLS certificate`,
    DEPTH_ZERO_SELF_SIGNED_CERT: `${host} presented a self-signed TLS certificate`,
  };
  const message =
    (code && reasons[code]) ??
    `request to ${url} failed: ${error instanceof Error ? error.message : String(error)}`;
  return new GeneratorError('network_error', `${command}: ${message}`, { cause: error });
}

/** Explains why a server could not listen on `port`. */
export function listenError(command: string, port: number, error: unknown): unknown {
  const code = errorCode(error);
  if (code === 'EADDRINUSE') {
    return new GeneratorError('invalid_argument', `${command}: port ${port} is already in use (EADDRINUSE)`, {
      expected: 'a free port (--port 0 picks one)',
      cause: error,
    });
  }
  if (code === 'EACCES') {
    return new GeneratorError(
      'invalid_argument',
      `${command}: not allowed to listen on port ${port} (EACCES)`,
      {
        expected: 'a port above 1023',
        cause: error,
      },
    );
  }
  return error;
}
