/** Shared pieces of the developer-tool tests: in-memory IO, tiny HTTP servers, Petstore as a runtime contract. */
import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContractModel } from '../../generator/model.js';
import type { ToolIo } from '../../generator/tools/output.js';
import { createPayloadValidator } from '../../generator/tools/validate.js';
import type { Contract, StandardSchemaV1 } from '../../runtime/contract.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const PETSTORE = path.join(repoRoot, 'schemas/petstore.openapi.yaml');

export interface MemoryIo extends ToolIo {
  out(): string;
  err(): string;
  /** stdout lines parsed as JSON. */
  jsonLines(): unknown[];
}

export function memoryIo(env: ToolIo['env'] = {}, now?: () => number): MemoryIo {
  let out = '';
  let err = '';
  return {
    stdout: { write: (chunk: string) => (out += chunk) },
    stderr: { write: (chunk: string) => (err += chunk) },
    env,
    ...(now ? { now } : {}),
    out: () => out,
    err: () => err,
    jsonLines: () =>
      out
        .split('\n')
        .filter((line) => line.trim().startsWith('{'))
        .map((line) => JSON.parse(line) as unknown),
  };
}

export interface TestServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startServer(listener: RequestListener): Promise<TestServer> {
  const server: Server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
}

/** A server that records every request's exact bytes and answers `status`. */
export async function startRecorder(
  status = 200,
  answer = '{"ok":true}',
): Promise<TestServer & { requests: RecordedRequest[] }> {
  const requests: RecordedRequest[] = [];
  const server = await startServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks),
      });
      res.writeHead(status, { 'content-type': 'application/json' }).end(answer);
    });
  });
  return Object.assign(server, { requests });
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = await startServer(() => {});
  const port = Number(new URL(server.url).port);
  await server.close();
  return port;
}

/**
 * The runtime descriptor of a loaded contract, with Ajv-backed Standard Schemas standing in for the
 * generated zod schemas (the receiver only needs `~standard.validate`).
 */
export function contractFromModel(model: ContractModel): Contract {
  const validator = createPayloadValidator(model);
  const events: Record<string, { schema: StandardSchemaV1; match?: { header?: string; body?: string } }> = {};
  for (const event of model.events) {
    const schema: StandardSchemaV1 = {
      '~standard': {
        version: 1,
        vendor: 'ajv',
        validate: (value) => {
          const issues = validator.validate(event.name, value);
          return issues.length === 0
            ? { value }
            : { issues: issues.map((i) => ({ message: i.message, path: i.pointer.split('/').slice(1) })) };
        },
      },
    };
    events[event.name] = event.match ? { schema, match: event.match } : { schema };
  }
  return {
    name: model.name,
    version: model.version,
    events,
    signature: model.signature,
    envelope: model.envelope,
    selector: model.selector,
    ...(model.retry ? { retry: model.retry } : {}),
  };
}
