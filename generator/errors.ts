/**
 * The generator's one error class. `code` is a closed union; `file` and `pointer` say where the
 * problem is; `expected` says what would have been valid. The CLI prints these as one line each and
 * exits non-zero; it never prints a stack trace for a GeneratorError.
 */

export type GeneratorErrorCode =
  | 'file_not_found'
  | 'read_failed'
  | 'invalid_yaml'
  | 'invalid_json'
  | 'unknown_format'
  | 'unsupported_version'
  | 'invalid_document'
  | 'ref_not_found'
  | 'ref_cycle'
  | 'remote_ref_refused'
  | 'ref_outside_root'
  | 'too_deep'
  | 'no_events'
  | 'identifier_collision'
  | 'invalid_extension'
  | 'invalid_argument'
  | 'invalid_config'
  | 'write_failed'
  | 'format_failed'
  | 'check_failed'
  | 'network_error'
  | 'breaking_change';

export interface GeneratorErrorOptions {
  /** File the problem is in (as given or resolved). */
  file?: string;
  /** JSON pointer inside that file, e.g. `/webhooks/pet.adopted/post`. */
  pointer?: string;
  /** What would have been valid there. */
  expected?: string;
  cause?: unknown;
}

export class GeneratorError extends Error {
  override readonly name = 'GeneratorError';
  readonly code: GeneratorErrorCode;
  readonly file: string | undefined;
  readonly pointer: string | undefined;
  readonly expected: string | undefined;

  constructor(code: GeneratorErrorCode, message: string, options: GeneratorErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.file = options.file;
    this.pointer = options.pointer;
    this.expected = options.expected;
  }

  /** One line for people: `file#/pointer: message (expected …) [code]`. */
  format(): string {
    const where = this.file ? `${this.file}${this.pointer !== undefined ? `#${this.pointer}` : ''}: ` : '';
    const expected = this.expected ? ` (expected ${this.expected})` : '';
    return `${where}${this.message}${expected} [${this.code}]`;
  }

  toJSON(): Record<string, string | undefined> {
    return {
      code: this.code,
      message: this.message,
      file: this.file,
      pointer: this.pointer,
      expected: this.expected,
    };
  }
}

/** A non-fatal finding: an unsupported keyword, an ignored operation, a renamed identifier. */
export interface Diagnostic {
  readonly level: 'warning' | 'info';
  readonly code: string;
  readonly message: string;
  readonly file?: string;
  readonly pointer?: string;
}
