/**
 * Reads one document (file or fetched text) and parses it as JSON or YAML 1.2. Syntax errors become
 * `invalid_json` / `invalid_yaml` GeneratorErrors with the line and column in the message.
 */
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { GeneratorError } from '../errors.js';
import { locateJsonError } from './json-error.js';

export interface ParsedDocument {
  /** Absolute path or absolute URL: the identity used for ref resolution and caching. */
  readonly id: string;
  readonly value: unknown;
  /**
   * The source text of a scalar as written (YAML `version: 1.0` parses to the number 1, but a
   * version string must stay `1.0`); `undefined` for JSON or when the node is not a scalar.
   */
  rawScalar(tokens: readonly string[]): string | undefined;
}

export type SyntaxKind = 'json' | 'yaml';

/** `.json` files are JSON; everything else is YAML (a JSON superset in practice). */
export function syntaxOf(name: string): SyntaxKind {
  return /\.json$/i.test(name.split(/[?#]/)[0] ?? name) ? 'json' : 'yaml';
}

export async function readDocumentFile(id: string, display: string): Promise<ParsedDocument> {
  let text: string;
  try {
    text = await readFile(id, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new GeneratorError('file_not_found', `file not found: ${display}`, {
        file: display,
        expected: 'an existing .yaml, .yml or .json file',
        cause: error,
      });
    }
    throw new GeneratorError('read_failed', `cannot read ${display}: ${(error as Error).message}`, {
      file: display,
      cause: error,
    });
  }
  return parseDocumentText(text, id, display, syntaxOf(id));
}

const NO_RAW = (): undefined => undefined;

export function parseDocumentText(
  text: string,
  id: string,
  display: string,
  syntax: SyntaxKind,
): ParsedDocument {
  // A byte-order mark is not part of either syntax but editors write one.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (syntax === 'json') {
    try {
      return { id, value: JSON.parse(body) as unknown, rawScalar: NO_RAW };
    } catch (error) {
      const where = locateJsonError(body);
      const detail = where
        ? `invalid JSON at line ${where.line}, column ${where.column}: ${where.message}`
        : `invalid JSON: ${(error as Error).message}`;
      throw new GeneratorError('invalid_json', detail, {
        file: display,
        expected: 'a JSON document (RFC 8259)',
        cause: error,
      });
    }
  }
  const doc = parseDocument(body, { version: '1.2', merge: true, uniqueKeys: true, prettyErrors: true });
  const first = doc.errors[0];
  if (first) {
    const pos = first.linePos?.[0];
    const reason = (first.message.split('\n')[0] ?? first.message).replace(/ at line \d+, column \d+:?$/, '');
    const at = pos ? ` at line ${pos.line}, column ${pos.col}` : '';
    throw new GeneratorError('invalid_yaml', `invalid YAML${at}: ${reason}`, {
      file: display,
      expected: 'a YAML 1.2 document',
      cause: first,
    });
  }
  let value: unknown;
  try {
    // The default alias limit stays on: it stops "billion laughs" documents.
    value = doc.toJS();
  } catch (error) {
    throw new GeneratorError('invalid_yaml', `invalid YAML: ${(error as Error).message}`, {
      file: display,
      expected: 'a YAML 1.2 document',
      cause: error,
    });
  }
  return {
    id,
    value,
    rawScalar(tokens) {
      const node = doc.getIn(tokens, true) as { source?: unknown } | undefined;
      return node && typeof node === 'object' && typeof node.source === 'string' ? node.source : undefined;
    },
  };
}
