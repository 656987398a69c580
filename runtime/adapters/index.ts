/**
 * Framework adapters for receivers: Web-standard (`Request → Response`), `node:http`, Express,
 * Fastify and AWS Lambda. None imports its framework: they use the framework's objects structurally.
 */
export { type ExpressHandlerOptions, expressHandler } from './express.js';
export { type FastifyWebhookOptions, fastifyWebhook } from './fastify.js';
export { lambdaHandler, toLambdaResult } from './lambda.js';
export type {
  LambdaEventV1,
  LambdaEventV2,
  LambdaHandlerOptions,
  LambdaHttpEvent,
  LambdaHttpHandler,
  LambdaHttpResult,
} from './lambda-types.js';
export { nodeHandler, readNodeBody, requestUrl, sendNodeResult } from './node-http.js';
export type { ReceiverLike } from './types.js';
export { readRequestBody, toResponse, webHandler } from './web.js';
