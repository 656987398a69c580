/**
 * One generated receiver behind a real HTTP server on 127.0.0.1, and the vendor's deliveries posted
 * to it as exact bytes: what each answered and which typed handler (if any) saw it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Contract, EventMapBase } from '../../runtime/contract.js';
import type { Receiver, ReceiverOptions } from '../../runtime/receive/index.js';
import type { Vendor } from './vendor.js';

export interface GeneratedModule {
  readonly contract: Contract<EventMapBase>;
  readonly createReceiver: (options: ReceiverOptions<EventMapBase>) => Receiver<EventMapBase>;
}

export interface Seen {
  readonly handler: string;
  readonly id: string;
  readonly data: unknown;
}

export interface Answer {
  readonly status: number;
  readonly body: string;
  /** What the handlers saw for this delivery (one entry when it reached a typed handler). */
  readonly seen: readonly Seen[];
  readonly headers: Record<string, string>;
}

export interface Endpoint {
  deliver(event: string, body: unknown): Promise<Answer>;
  close(): Promise<void>;
}

export async function endpoint(
  mod: GeneratedModule,
  vendor: Vendor,
  validation: 'strict' | 'report' = 'strict',
): Promise<Endpoint> {
  let seen: Seen[] = [];
  const record = (handler: string) => (event: { id: string; data: unknown }) => {
    seen.push({ handler, id: event.id, data: event.data });
  };
  const handlers = Object.fromEntries(Object.keys(mod.contract.events).map((name) => [name, record(name)]));
  const receiver = mod.createReceiver({
    ...(vendor.secret === undefined ? {} : { secret: vendor.secret }),
    dedupe: false,
    validation,
    handlers,
    unknownEvent: record('(unknown)'),
    onError: () => {},
  } as ReceiverOptions<EventMapBase>);
  const server = http.createServer(receiver.node());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/webhooks`;
  return {
    async deliver(event, body) {
      const text = JSON.stringify(body);
      const headers = vendor.headers(text, { event, timestamp: Math.floor(Date.now() / 1000) });
      seen = [];
      const response = await fetch(url, { method: 'POST', headers, body: text });
      return { status: response.status, body: await response.text(), seen, headers };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
