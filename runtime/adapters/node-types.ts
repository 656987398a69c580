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
  /** Ends the request and its socket (a body that missed its deadline is not read further). */
  destroy?(): unknown;
}

/** Options of `receiver.node(options)`. */
export interface NodeAdapterOptions {
  /**
   * Deadline for reading the whole body, in ms from the start of the read (default 10 000). A body
   * not complete by then is answered 408 and its connection closed: a client trickling a byte at a
   * time cannot hold a socket until Node's `server.requestTimeout` (300 s). `Infinity` turns it off.
   */
  readonly bodyTimeoutMs?: number;
}

export interface NodeResponse {
  statusCode: number;
  readonly headersSent: boolean;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
  once?(event: 'finish', listener: () => void): unknown;
}
