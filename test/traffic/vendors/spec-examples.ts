/**
 * Documents whose "vendor" is a specification's own examples: the OpenAPI Initiative's examples and
 * test documents, ReadMe's oas-examples, the AsyncAPI examples and AsyncAPI Glee's examples.
 * - Body: the request body / message payload as the document describes it (OpenAPI Specification
 *   3.1 §4.8.14 Callback Object and §4.8.1 `webhooks`: the request the API sends;
 *   https://spec.openapis.org/oas/v3.1.0#callback-object; AsyncAPI 3.0 Message Object `payload`,
 *   https://www.asyncapi.com/docs/reference/specification/v3.0.0#messageObject). Broker protocols
 *   (MQTT, Kafka, WebSocket) carry the same payload bytes; here they arrive as an HTTP body.
 * - Signature: none — no document declares one for its callbacks, webhooks or messages.
 */
import type { Vendor } from '../vendor.js';

const SPEC_DOCS = ['oai-openapi-specification/', 'readme-oas-examples/', 'asyncapi-spec/', 'asyncapi-glee/'];

export const specExamples: Vendor = {
  name: 'specification examples',
  docs: [
    'https://spec.openapis.org/oas/v3.1.0#callback-object',
    'https://spec.openapis.org/oas/v3.1.0#fixed-fields',
    'https://www.asyncapi.com/docs/reference/specification/v3.0.0#messageObject',
  ],
  files: (file) => SPEC_DOCS.some((prefix) => file.startsWith(prefix)),
  signature: { kind: 'none' },
  secret: undefined,
  headers: () => ({ 'content-type': 'application/json' }),
  payload: 'bare',
  wrap: (payload) => payload,
};
