/** Spawns test/receiver/child-receiver.ts with `node --import tsx` and waits for its output lines. */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');

/** True when a complete output line starts with `prefix`. */
function hasLine(output: string, prefix: string): boolean {
  return output
    .split('\n')
    .slice(0, -1)
    .some((l) => l.startsWith(prefix));
}

export interface Child {
  readonly process: ChildProcess;
  readonly url: string;
  /** Resolves when the child prints `line` (bounded by the test timeout). */
  waitFor(line: string): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function startChild(env: Record<string, string>): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'child-receiver.ts')], {
    cwd: root,
    env: { ...process.env, ...env, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters: { line: string; resolve: () => void }[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of [...waiters]) {
      if (hasLine(output, waiter.line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waitFor = (line: string): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      if (hasLine(output, line)) {
        resolve();
        return;
      }
      waiters.push({ line, resolve });
      void exited.then(() => reject(new Error(`child exited before "${line}": ${stderr}`)));
    });
  await waitFor('LISTENING');
  const port = /LISTENING (\d+)/.exec(output)?.[1];
  return {
    process: child,
    url: `http://127.0.0.1:${port}/hooks`,
    waitFor,
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
