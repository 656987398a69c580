/** How a long-running tool (listen, mock-receiver) learns it is ready and when to stop; tests inject both. */
import { waitForShutdown } from './signals.js';

export interface Lifecycle {
  /** Called once the server listens, with its base URL. */
  readonly onListening?: (url: string) => void;
  /** Resolves when the tool should stop. Default: SIGINT or SIGTERM. */
  readonly untilStopped?: () => Promise<unknown>;
}

export function stopSignal(lifecycle: Lifecycle): Promise<unknown> {
  return (lifecycle.untilStopped ?? waitForShutdown)();
}
