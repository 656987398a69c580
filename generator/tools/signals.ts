/** Long-running tools (listen, mock-receiver) run until SIGINT/SIGTERM, then report and close. */
export function waitForShutdown(
  signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'],
): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      for (const name of signals) process.off(name, onSignal);
      resolve(signal);
    };
    for (const name of signals) process.on(name, onSignal);
  });
}
