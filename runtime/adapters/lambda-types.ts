/**
 * The parts of AWS Lambda's HTTP events the Lambda adapter reads, and the result it returns,
 * written structurally so that nobody has to install `@types/aws-lambda` (an optional peer):
 * `APIGatewayProxyEvent` (REST APIs, HTTP API payload 1.0), `APIGatewayProxyEventV2` (HTTP API
 * payload 2.0) and `LambdaFunctionURLEvent` (the v2 shape) are each assignable to `LambdaHttpEvent`,
 * and `LambdaHttpResult` to `APIGatewayProxyResult` and `APIGatewayProxyResultV2`
 * (test/types/lambda.test-d.ts checks both ways against the real types).
 */

type Values<T> = { readonly [name: string]: T | undefined };

/** REST API or HTTP API payload 1.0 (`version: '1.0'` or none). */
export interface LambdaEventV1 {
  readonly version?: string;
  readonly httpMethod: string;
  readonly path?: string;
  readonly headers?: Values<string> | null;
  readonly multiValueHeaders?: Values<readonly string[]> | null;
  readonly queryStringParameters?: Values<string> | null;
  readonly multiValueQueryStringParameters?: Values<readonly string[]> | null;
  readonly body?: string | null;
  readonly isBase64Encoded?: boolean;
  readonly requestContext: {
    /** The path as called, the stage included (`/prod/hooks`); `event.path` omits the stage. */
    readonly path?: string;
    readonly domainName?: string;
  };
}

/** HTTP API payload 2.0 and Lambda Function URLs. */
export interface LambdaEventV2 {
  readonly version: string;
  readonly rawPath?: string;
  readonly rawQueryString?: string;
  /** Comma-joined when repeated; names lower-case. */
  readonly headers?: Values<string>;
  /** The `Cookie` header, split off the headers by AWS. */
  readonly cookies?: readonly string[];
  readonly body?: string;
  readonly isBase64Encoded?: boolean;
  readonly requestContext: {
    readonly domainName?: string;
    readonly http: { readonly method: string; readonly path?: string };
  };
}

export type LambdaHttpEvent = LambdaEventV1 | LambdaEventV2;

/** Valid as a v1 result (`statusCode` and `body` required) and as a v2 structured result. */
export interface LambdaHttpResult {
  statusCode: number;
  headers: { [name: string]: string };
  body: string;
  isBase64Encoded: boolean;
}

export interface LambdaHandlerOptions {
  /**
   * Public URL of the endpoint, for schemes that sign the URL behind a custom domain or CloudFront.
   * Default: `https://` + the Host header (or `requestContext.domainName`) + the path as called + query.
   */
  readonly publicUrl?: (event: LambdaHttpEvent) => string;
}

/** What a Lambda runtime calls: the event in, the result out (the context argument is not needed). */
export type LambdaHttpHandler = (event: LambdaHttpEvent) => Promise<LambdaHttpResult>;
