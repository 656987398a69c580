/** What each file under commands/ exports as `command` (cli.ts dispatches to it). */
export interface Command {
  readonly summary: string;
  readonly help: string;
  run(argv: readonly string[]): Promise<number>;
}
