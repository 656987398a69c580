/**
 * Which input format a document is: `openapi: 3.1.x` (and 3.2.x, a superset for webhooks) →
 * openapi-3.1, `3.0.x` → openapi-3.0,
 * `asyncapi: 2.x.y` → asyncapi-2, `3.x.y` → asyncapi-3. A mapping with neither key is not a contract
 * (the caller decides whether that is an error); a known key with another version is
 * `unsupported_version`.
 */
import { GeneratorError } from '../errors.js';
import type { InputFormat } from '../model.js';
import { isRecord, type SourceDocument } from './document-store.js';

export type Detection =
  | { readonly kind: 'contract'; readonly format: InputFormat; readonly version: string }
  | { readonly kind: 'not-contract'; readonly reason: string };

export const EXPECTED_FORMAT =
  'an OpenAPI 3.0.x/3.1.x/3.2.x or AsyncAPI 2.x/3.x document (a mapping with an `openapi` or `asyncapi` key)';

/** The version as written: YAML `openapi: 3.1` is the number 3.1, shown as the source text. */
function versionText(doc: SourceDocument, key: string, value: unknown): string {
  if (typeof value === 'string') return value;
  return doc.rawScalar([key]) ?? String(value);
}

export function detectFormat(doc: SourceDocument): Detection {
  const value = doc.value;
  if (value === null || value === undefined) return { kind: 'not-contract', reason: 'the document is empty' };
  if (!isRecord(value)) {
    const what = Array.isArray(value) ? 'a list' : `a ${typeof value}`;
    return { kind: 'not-contract', reason: `the document is ${what}, not a mapping` };
  }
  if ('openapi' in value) {
    const version = versionText(doc, 'openapi', value.openapi);
    if (/^3\.[12]\.\d+(-.+)?$/.test(version)) return { kind: 'contract', format: 'openapi-3.1', version };
    if (/^3\.0\.\d+(-.+)?$/.test(version)) return { kind: 'contract', format: 'openapi-3.0', version };
    throw new GeneratorError(
      'unsupported_version',
      `unsupported OpenAPI version ${JSON.stringify(version)}`,
      {
        file: doc.display,
        pointer: '/openapi',
        expected: '"3.0.x", "3.1.x" or "3.2.x"',
      },
    );
  }
  if ('asyncapi' in value) {
    const version = versionText(doc, 'asyncapi', value.asyncapi);
    if (/^2\.\d+\.\d+(-.+)?$/.test(version)) return { kind: 'contract', format: 'asyncapi-2', version };
    if (/^3\.\d+\.\d+(-.+)?$/.test(version)) return { kind: 'contract', format: 'asyncapi-3', version };
    throw new GeneratorError(
      'unsupported_version',
      `unsupported AsyncAPI version ${JSON.stringify(version)}`,
      {
        file: doc.display,
        pointer: '/asyncapi',
        expected: '"2.x.y" (2.0–2.6) or "3.x.y"',
      },
    );
  }
  if ('swagger' in value) {
    throw new GeneratorError(
      'unsupported_version',
      `Swagger ${JSON.stringify(value.swagger)} is not supported`,
      {
        file: doc.display,
        pointer: '/swagger',
        expected: 'OpenAPI 3.0.x/3.1.x (convert Swagger 2.0 documents first)',
      },
    );
  }
  return { kind: 'not-contract', reason: 'the document has no `openapi` or `asyncapi` key' };
}
