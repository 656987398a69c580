/**
 * Bounds that keep a hostile document from exhausting the generator's stack. Normalising a schema,
 * building its type and validator, hoisting and fixture synthesis recurse once per level, and
 * "Maximum call stack size exceeded" is neither typed nor says where. Real contracts stay far
 * below both bounds (GitHub's webhooks: 20 JSON levels, 18 schema levels while normalising); the
 * emitters run out of stack at about 600 nested schemas.
 */
import { GeneratorError } from '../errors.js';

/** Objects and arrays inside one document, counted from its root. */
export const MAX_DOCUMENT_DEPTH = 1024;

/** Schemas inside schemas while normalising, counting each `$ref` to an unnamed target (inlined); named targets come from a worklist. */
export const MAX_SCHEMA_DEPTH = 256;

export function documentTooDeep(file: string, pointer: string): GeneratorError {
  return new GeneratorError(
    'too_deep',
    `the document nests more than ${MAX_DOCUMENT_DEPTH} objects/arrays deep`,
    { file, pointer, expected: `at most ${MAX_DOCUMENT_DEPTH} levels of nesting` },
  );
}

export function schemaTooDeep(file: string, pointer: string): GeneratorError {
  return new GeneratorError(
    'too_deep',
    `schemas nest (or $refs chain) more than ${MAX_SCHEMA_DEPTH} levels deep here`,
    { file, pointer, expected: `at most ${MAX_SCHEMA_DEPTH} nested schemas and followed $refs` },
  );
}
