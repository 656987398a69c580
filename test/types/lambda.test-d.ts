/**
 * Compile-only: the Lambda adapter's structural types (runtime/adapters/lambda-types.ts) accept
 * the events `@types/aws-lambda` describes (a devDependency here, an optional peer for users) and
 * its handler is a valid handler for each trigger. Checked by `npm run typecheck`; every
 * `@ts-expect-error` must be needed.
 */
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyHandler,
  APIGatewayProxyHandlerV2,
  APIGatewayProxyResult,
  APIGatewayProxyResultV2,
  APIGatewayProxyStructuredResultV2,
  LambdaFunctionURLEvent,
  LambdaFunctionURLHandler,
  SQSEvent,
} from 'aws-lambda';
import { lambdaHandler } from '../../runtime/adapters/lambda.js';
import type { LambdaHttpEvent, LambdaHttpResult } from '../../runtime/adapters/lambda-types.js';
import type { Receiver } from '../../runtime/receive/types.js';

declare const receiver: Receiver;
declare const v1: APIGatewayProxyEvent;
declare const v2: APIGatewayProxyEventV2;
declare const url: LambdaFunctionURLEvent;
declare const sqs: SQSEvent;
declare const result: LambdaHttpResult;

export const events: LambdaHttpEvent[] = [v1, v2, url];
export const results: [APIGatewayProxyResult, APIGatewayProxyResultV2, APIGatewayProxyStructuredResultV2] = [
  result,
  result,
  result,
];

// The handler is what each trigger's handler type expects.
export const handlers: [APIGatewayProxyHandler, APIGatewayProxyHandlerV2, LambdaFunctionURLHandler] = [
  lambdaHandler(receiver),
  lambdaHandler(receiver),
  lambdaHandler(receiver),
];

// @ts-expect-error a queue event is not an HTTP event
export const notHttp: LambdaHttpEvent = sqs;
