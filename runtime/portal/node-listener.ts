/**
 * Serves a Web-standard handler (the portal, the management API) from `node:http`: the request body
 * is read with a cap, the Request gets the URL the client called, every header of the Response is
 * written (each Set-Cookie on its own).
 */
import { readNodeBody, requestUrl } from '../adapters/node-http.js';
import type { NodeRequest } from '../adapters/node-types.js';
import { isWebhookError } from '../errors.js';

/**
 * The part of node:http's `ServerResponse` the listener calls (structural, so the declarations name
 * no Node type; a real `ServerResponse` is assignable).
 */
export interface NodeListenerResponse {
  readonly headersSent: boolean;
  writeHead(status: number, headers: { [name: string]: string | string[] }): unknown;
  end(body?: string | Uint8Array): unknown;
  destroy(): unknown;
}

export interface NodeListenerOptions {
  /** Largest request body read. Default 1 MiB. */
  readonly maxBodyBytes?: number;
}

export function toNodeListener(
  handler: (request: Request) => Promise<Response>,
  options: NodeListenerOptions = {},
): (req: NodeRequest, res: NodeListenerResponse) => void {
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  return (req, res) => {
    void (async () => {
      const method = (req.method ?? 'GET').toUpperCase();
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
        else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      }
      const body = method === 'GET' || method === 'HEAD' ? undefined : await readNodeBody(req, limit);
      const response = await handler(
        new Request(requestUrl(req), {
          method,
          headers,
          ...(body && body.byteLength > 0 ? { body: body as Uint8Array<ArrayBuffer> } : {}),
        }),
      );
      const out: Record<string, string | string[]> = {};
      response.headers.forEach((value, name) => {
        if (name !== 'set-cookie') out[name] = value;
      });
      const cookies = response.headers.getSetCookie();
      if (cookies.length > 0) out['set-cookie'] = cookies;
      res.writeHead(response.status, out);
      res.end(method === 'HEAD' ? undefined : new Uint8Array(await response.arrayBuffer()));
    })().catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const status = isWebhookError(error) ? error.status : 500;
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end(status === 413 ? 'Request body too large' : 'Bad request');
    });
  };
}
