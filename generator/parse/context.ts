/** What every format parser gets, and the draft events they return to parse/index.ts. */
import type { Diagnostic } from '../errors.js';
import type { DocumentStore, Loc } from '../load/document-store.js';
import type { SourcedSchema } from '../model.js';
import type { SchemaNormalizer } from './normalize-schema.js';

/** OpenAPI path item operation keys, in the order events are read. */
export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface ParseContext {
  readonly store: DocumentStore;
  readonly schemas: SchemaNormalizer;
  readonly diagnostics: Diagnostic[];
  /** GitHub conventions apply (preset option or a recognised GitHub document). */
  readonly github: boolean;
}

export interface EventDraft {
  readonly name: string;
  readonly summary?: string;
  readonly description?: string;
  readonly deprecated?: boolean;
  /** The request/message body schema; the payload is cut from it once the envelope is known. */
  readonly body: Loc;
  readonly headers?: SourcedSchema;
  /** Whole-body examples, in document order. */
  readonly bodyExamples: readonly unknown[];
  /** A form-encoded or multipart body (JSON when absent), and its fields that carry JSON. */
  readonly media?: { readonly kind: 'form' | 'multipart'; readonly jsonFields: readonly string[] };
  readonly match?: { readonly header?: string; readonly body?: string };
  readonly source: string;
  /**
   * AsyncAPI only: `send` when the document's application sends the message (3.x `action: send`,
   * 2.x `subscribe`), `receive` when it receives it (3.x `receive`, 2.x `publish`); `both` once two
   * uses of one message are merged (parse/index.ts).
   */
  readonly direction?: 'send' | 'receive' | 'both';
  /** Resolved location of the declaring operation/message: equal identities are the same event. */
  readonly identity: string;
  /** The declaring operation (or AsyncAPI message), for vendor extensions on it. */
  readonly operation?: Loc;
  readonly operationId?: string;
}

export function warn(ctx: ParseContext, loc: Loc, code: string, message: string): void {
  ctx.diagnostics.push({ level: 'warning', code, message, file: loc.doc.display, pointer: loc.pointer });
}

export function info(ctx: ParseContext, loc: Loc, code: string, message: string): void {
  ctx.diagnostics.push({ level: 'info', code, message, file: loc.doc.display, pointer: loc.pointer });
}

export function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}
