/**
 * The HTTP servers of bench:receive's GitHub section, each a `Contender` counting the requests whose
 * handler ran. The peers come in every layout their users would reasonably pick; the bench pilots
 * them and keeps the best (bench/lib/receive-github-pilot.ts):
 *   octokit  `createNodeMiddleware(webhooks, { path })` reading the body itself, or handed a body
 *            already read (`request.body` as a string: what `express.text()` or a framework leaves;
 *            its `getPayload` then skips the stream) × handlers by `webhooks.on(event)` or `onAny`.
 *            Its other options change no work: `path` is the route matched, `log.debug` is a no-op
 *            unless given, and `timeout` arms one timer per request whatever its value;
 *   methods  a bare `node:http` handler: `@octokit/webhooks-methods` `verify(secret, body, signature)`
 *            + JSON.parse, the body read as Buffer chunks or as utf8 string chunks (`setEncoding`),
 *            and as a Buffer payload when `verify` accepts one (6.x rejects it: string only).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import { createNodeMiddleware, Webhooks } from '@octokit/webhooks';
import { sign, verify } from '@octokit/webhooks-methods';
import type { Receiver } from '../../runtime/receive/types.js';
import { listen, readBody, type Server } from './http-load.js';

export const SECRET = 'bench-github-secret';

export interface Contender {
  readonly name: string;
  /** A peer's configuration (what the pilot chooses between). */
  readonly layout?: string;
  readonly server: Server;
  /** Requests whose handler ran (the event was verified, parsed, validated where it applies). */
  readonly handled: () => number;
  readonly stop?: () => Promise<void>;
}

function counter(): { add: () => void; get: () => number } {
  let n = 0;
  return { add: () => void n++, get: () => n };
}

export async function limitServer(): Promise<Contender> {
  const count = counter();
  const server = await listen(
    readBody<Buffer>('buffer', (body, req, res) => {
      const header = req.headers['x-hub-signature-256'];
      const given = typeof header === 'string' ? Buffer.from(header.slice(7), 'hex') : Buffer.alloc(0);
      const expected = createHmac('sha256', SECRET).update(body).digest();
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        res.statusCode = 401;
        res.end();
        return;
      }
      JSON.parse(body.toString('utf8'));
      count.add();
      res.end('ok');
    }),
  );
  return { name: 'limit: node:http + HMAC + timingSafeEqual + JSON.parse', server, handled: count.get };
}

export async function octokitLayouts(events: readonly string[]): Promise<[Contender, ...Contender[]]> {
  const make = async (body: 'stream' | 'read', handlers: 'on' | 'onAny'): Promise<Contender> => {
    const count = counter();
    const webhooks = new Webhooks({ secret: SECRET });
    if (handlers === 'on') for (const event of events) webhooks.on(event as 'issues.opened', count.add);
    else webhooks.onAny(count.add);
    const middleware = createNodeMiddleware(webhooks, { path: '/hooks' });
    const handler: http.RequestListener =
      body === 'stream'
        ? (req, res) => void middleware(req, res)
        : readBody<string>('utf8', (text, req, res) => {
            Object.assign(req, { body: text });
            void middleware(req, res);
          });
    const layout = `${body === 'stream' ? 'body read by the middleware' : 'body read before it'}, ${handlers === 'on' ? 'on(event)' : 'onAny'}`;
    const server = await listen(handler);
    return { name: '@octokit/webhooks createNodeMiddleware', layout, server, handled: count.get };
  };
  return [
    await make('stream', 'on'),
    await make('stream', 'onAny'),
    await make('read', 'on'),
    await make('read', 'onAny'),
  ];
}

/** Whether this `verify` takes a Buffer payload (the bare handler's third layout). */
export async function methodsTakesBuffer(): Promise<boolean> {
  const signature = await sign(SECRET, '{}');
  return verify(SECRET, Buffer.from('{}') as unknown as string, signature).then(
    (ok) => ok,
    () => false,
  );
}

export async function methodsLayouts(buffer: boolean): Promise<[Contender, ...Contender[]]> {
  const make = async (as: 'buffer' | 'utf8' | 'payload'): Promise<Contender> => {
    const count = counter();
    const answer = (ok: boolean, parse: () => unknown, res: http.ServerResponse): void => {
      if (!ok) {
        res.statusCode = 401;
        res.end();
        return;
      }
      parse();
      count.add();
      res.end('ok');
    };
    const signature = (req: http.IncomingMessage): string => String(req.headers['x-hub-signature-256']);
    const handler =
      as === 'payload'
        ? readBody<Buffer>('buffer', (body, req, res) => {
            void verify(SECRET, body as unknown as string, signature(req))
              .catch(() => false)
              .then((ok) => answer(ok, () => JSON.parse(body.toString('utf8')), res));
          })
        : readBody<Buffer | string>(as, (body, req, res) => {
            const text = typeof body === 'string' ? body : body.toString('utf8');
            void verify(SECRET, text, signature(req))
              .catch(() => false)
              .then((ok) => answer(ok, () => JSON.parse(text), res));
          });
    const layout = {
      buffer: 'Buffer chunks, toString, string payload',
      utf8: 'setEncoding(utf8), string payload',
      payload: 'Buffer payload',
    }[as];
    const server = await listen(handler);
    return { name: 'bare node:http + @octokit/webhooks-methods verify', layout, server, handled: count.get };
  };
  const layouts: [Contender, ...Contender[]] = [await make('buffer'), await make('utf8')];
  if (buffer) layouts.push(await make('payload'));
  return layouts;
}

export async function oursServer(
  name: string,
  make: (handlers: Record<string, () => void>) => Receiver<never>,
  events: readonly string[],
): Promise<Contender> {
  const count = counter();
  const receiver = make(Object.fromEntries(events.map((event) => [event, count.add])));
  const server = await listen(receiver.node() as http.RequestListener);
  return { name, server, handled: count.get, stop: () => receiver.stop() };
}
