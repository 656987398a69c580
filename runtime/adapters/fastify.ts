/**
 * Fastify plugin: `app.register(fastifyWebhook(receiver, { path: '/hooks' }))`.
 *
 * Registered without `fastify-plugin`, the plugin gets its own encapsulated scope, so the raw-body
 * content parser it installs (every content type → Buffer, capped at `maxBodyBytes`) applies to the
 * webhook route only and the app's JSON parsing elsewhere is untouched.
 */
import { bodyTooLarge } from '../bytes.js';
import { WebhookError } from '../errors.js';
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import type { ReceiveResult } from '../receive/types.js';
import type { HeadersInput } from '../signing/scheme.js';
import type { ReceiverLike } from './types.js';

/** The parts of Fastify's API the plugin uses (structural: no dependency on fastify). */
interface FastifyRequestLike {
  readonly headers: HeadersInput;
  readonly body: unknown;
  readonly protocol?: string;
  readonly host?: string;
  readonly url: string;
  readonly method?: string;
}

interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  header(name: string, value: string): FastifyReplyLike;
  send(payload?: unknown): FastifyReplyLike;
}

interface FastifyScopeLike {
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    contentType: string,
    options: { parseAs: 'buffer'; bodyLimit: number },
    parser: (req: unknown, body: Uint8Array, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
  setErrorHandler(
    handler: (
      error: Error & { code?: string; statusCode?: number },
      request: unknown,
      reply: FastifyReplyLike,
    ) => void,
  ): void;
  route(options: {
    method: string;
    url: string;
    handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<FastifyReplyLike>;
  }): void;
}

export interface FastifyWebhookOptions {
  /** Route path, e.g. `/hooks`. */
  readonly path: string;
  /** Default `POST`. */
  readonly method?: 'POST' | 'PUT';
}

function send(reply: FastifyReplyLike, result: ReceiveResult): FastifyReplyLike {
  reply.code(result.status);
  for (const [name, value] of Object.entries(result.headers ?? {})) reply.header(name, value);
  return reply.send(result.body);
}

const FASTIFY_KEYS = { path: true, method: true } as const satisfies KnownKeys<FastifyWebhookOptions>;

export function fastifyWebhook(
  receiver: ReceiverLike,
  options: FastifyWebhookOptions,
): (instance: FastifyScopeLike, opts: unknown) => Promise<void> {
  checkKnownOptions('fastifyWebhook', options, FASTIFY_KEYS);
  return async (instance) => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: receiver.maxBodyBytes },
      (_req, body, done) => done(null, body),
    );
    instance.setErrorHandler((error, _request, reply) => {
      const mapped =
        error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? bodyTooLarge(receiver.maxBodyBytes)
          : error.statusCode !== undefined && error.statusCode < 500
            ? new WebhookError('invalid_body', error.message, { status: error.statusCode, cause: error })
            : error;
      send(reply, receiver.reject(mapped));
    });
    instance.route({
      method: options.method ?? 'POST',
      url: options.path,
      handler: async (request, reply) => {
        const body = request.body;
        // A request without a body never reaches the parser: verify an empty body.
        const raw = body instanceof Uint8Array || typeof body === 'string' ? body : new Uint8Array(0);
        const url = `${request.protocol ?? 'http'}://${request.host ?? 'localhost'}${request.url}`;
        const method = request.method === undefined ? {} : { method: request.method };
        return send(reply, await receiver.handle({ headers: request.headers, body: raw, url, ...method }));
      },
    });
  };
}
