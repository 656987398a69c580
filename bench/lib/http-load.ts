/**
 * Servers under load for bench:receive: `listen(handler)` starts a keep-alive `node:http` server that
 * counts the requests it receives; `runLoad(server, spec)` runs the load generator (autocannon in a
 * child process, bench/lib/load-generator.ts) against it and adds the server's CPU time per request:
 * this process's CPU over the round divided by the requests received — far steadier than req/s on a
 * shared machine, where the load generator competes with the server for the same cores.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadSpec, LoadSummary } from './load-generator.js';

const generator = path.join(path.dirname(fileURLToPath(import.meta.url)), 'load-generator.ts');

export interface Load extends LoadSummary {
  /** Server (this process) CPU time per request received, µs. */
  readonly cpuUs: number;
  /** Requests the server received during the run. */
  readonly served: number;
  /** 1-minute load average at the end of the round. */
  readonly loadavg: number;
}

export interface Server {
  readonly url: string;
  /** Requests received so far. */
  served(): number;
  close(): Promise<void>;
}

/** Calls `then(body, req, res)` with the whole body as Buffer chunks joined, or as utf8 text. */
export function readBody<T extends Buffer | string>(
  as: 'buffer' | 'utf8',
  then: (body: T, req: http.IncomingMessage, res: http.ServerResponse) => void,
): http.RequestListener {
  if (as === 'utf8') {
    return (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        body += chunk;
      });
      req.on('end', () => then(body as T, req, res));
    };
  }
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => then((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)) as T, req, res));
  };
}

export async function listen(handler: http.RequestListener, route = '/hooks'): Promise<Server> {
  let served = 0;
  const server = http.createServer({ keepAliveTimeout: 60_000 }, handler);
  server.on('request', () => {
    served++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${route}`,
    served: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs one load round (`seconds` overrides BENCH_SECONDS, e.g. for a short warm-up). */
export function runLoad(server: Server, spec: LoadSpec, seconds?: number): Promise<Load> {
  const specFile = path.join(os.tmpdir(), `gw-load-${process.pid}-${Date.now()}.json`);
  fs.writeFileSync(specFile, JSON.stringify(spec));
  const env = seconds === undefined ? process.env : { ...process.env, BENCH_SECONDS: String(seconds) };
  const cpu = process.cpuUsage();
  const served = server.served();
  return new Promise<Load>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', generator, server.url, specFile], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env,
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', async (code) => {
      fs.rmSync(specFile, { force: true });
      if (code !== 0) {
        reject(new Error(`load generator exited with ${code}`));
        return;
      }
      // Let requests still in flight when the load stopped finish (their CPU and handler count).
      await new Promise((settle) => setTimeout(settle, 100));
      const used = process.cpuUsage(cpu);
      const n = server.served() - served;
      const summary = JSON.parse(out.trim().split('\n').pop() ?? '{}') as LoadSummary;
      resolve({
        ...summary,
        served: n,
        cpuUs: n === 0 ? 0 : (used.user + used.system) / n,
        loadavg: os.loadavg()[0] ?? 0,
      });
    });
  });
}
