/**
 * The parts of `node:http`'s `IncomingMessage` and `ServerResponse` the Node adapters use, declared
 * structurally: the runtime's types need no `@types/node`, and Node's own objects (and Express's,
 * which extend them) are assignable.
 */

export interface NodeRequest {
  readonly headers: { readonly [name: string]: string | string[] | undefined };
  readonly url?: string | undefined;
  /** Upper-case HTTP method (provider handshakes answer GET and OPTIONS before verification). */
  readonly method?: string | undefined;
  readonly readableEnded: boolean;
  readonly socket?: unknown;
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  off(event: 'end', listener: () => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
  resume(): unknown;
}

export interface NodeResponse {
  statusCode: number;
  readonly headersSent: boolean;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}
