/** Real HTTP helpers for receiver tests: listen on 127.0.0.1:0 and POST exact bytes. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  readonly url: string;
  close(): Promise<void>;
}

export async function listen(server: http.Server): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers: Headers;
}

export async function post(
  url: string,
  delivery: { headers: Record<string, string>; body: string },
): Promise<Answer> {
  const response = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
  return { status: response.status, body: await response.text(), headers: response.headers };
}
