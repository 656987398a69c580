/**
 * examples/petstore-provider's one command as a child process, for the tests that drive it as a
 * tenant would: started on free ports with its SQLite file in `dir`, resolved once it prints `ready`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { eventually } from '../portal/helpers.js';
import { repoRoot } from '../tools/helpers.js';

export interface PetstoreExample {
  readonly child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  readonly output: string;
  /** The first capture of `pattern` in what it printed at start-up. */
  printed(pattern: RegExp): string | undefined;
}

export async function startPetstoreExample(dir: string): Promise<PetstoreExample> {
  let output = '';
  // node itself, not the tsx wrapper: SIGKILL reaches the process that serves (a killed wrapper
  // leaves its node child running).
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/petstore-provider/start.ts'], {
    cwd: repoRoot,
    env: { ...process.env, PORT: '0', CUSTOMER_PORT: '0', PETSTORE_DB: path.join(dir, 'petstore.sqlite') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await eventually(async () => (/^ready$/m.test(output) ? true : undefined), 60_000).catch(() => {
    child.kill('SIGKILL');
    throw new Error(`the example did not start:\n${output}`);
  });
  return {
    child,
    get output() {
      return output;
    },
    printed: (pattern) => pattern.exec(output)?.[1],
  };
}
