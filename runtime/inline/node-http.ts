/** node:http as the runtime's sender uses it (see `node.ts`). */
import type { Buffer } from './globals.js';
import { builtin } from './node.js';
import type { LookupFunction } from './node-net.js';

export type IncomingHttpHeaders = Record<string, string | string[] | undefined>;

export interface IncomingMessage {
  readonly statusCode?: number | undefined;
  readonly headers: IncomingHttpHeaders;
  on(event: 'data', listener: (this: never, chunk: Buffer) => void): this;
  on(event: 'end' | 'close' | 'error', listener: (this: never) => void): this;
  destroy(error?: Error): this;
}

export interface ClientRequest {
  on(event: 'response', listener: (this: never, response: IncomingMessage) => void): this;
  on(event: 'error', listener: (this: never, error: Error & { code?: string }) => void): this;
  end(body?: string | Uint8Array): this;
  destroy(error?: Error): this;
}

export interface Agent {
  destroy(): void;
}

export interface RequestOptions {
  protocol: string;
  hostname: string;
  port: number;
  path: string;
  method: string;
  headers: readonly string[];
  agent: Agent;
  lookup: LookupFunction;
}

export interface AgentOptions {
  keepAlive: boolean;
  keepAliveMsecs: number;
  maxSockets: number;
  scheduling: 'lifo' | 'fifo';
}

export interface HttpModule {
  Agent: new (options: AgentOptions) => Agent;
  request(options: RequestOptions): ClientRequest;
}

type AgentType = Agent;
type ClientRequestType = ClientRequest;
type IncomingHttpHeadersType = IncomingHttpHeaders;
type IncomingMessageType = IncomingMessage;

const http = builtin<HttpModule>('node:http');
// `http.ClientRequest` and the other names the sender writes as types.
declare namespace http {
  type Agent = AgentType;
  type ClientRequest = ClientRequestType;
  type IncomingHttpHeaders = IncomingHttpHeadersType;
  type IncomingMessage = IncomingMessageType;
}
export default http;
