/**
 * Finds where a JSON text stops being valid. `JSON.parse` in Node 20 reports no position for most
 * errors, so on failure the text is scanned once more by this small validator (failure path only).
 */

export interface JsonErrorLocation {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

class JsonSyntax extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

export function locateJsonError(text: string): JsonErrorLocation | undefined {
  let pos = 0;
  const fail = (message: string): never => {
    throw new JsonSyntax(message, pos);
  };
  const ws = () => {
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
  };
  const describe = () => (pos >= text.length ? 'end of input' : `'${text[pos]}'`);
  const literal = (word: string) => {
    if (text.startsWith(word, pos)) pos += word.length;
    else fail(`unexpected ${describe()}`);
  };
  const string = () => {
    pos++; // opening quote
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        pos++;
        return;
      }
      if (c < 0x20) fail('control character in string');
      if (c === 0x5c) {
        const next = text[pos + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) {
            pos++;
            fail('bad \\u escape in string');
          }
          pos += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) {
          pos += 2;
        } else {
          pos++;
          fail('bad escape in string');
        }
      } else {
        pos++;
      }
    }
    fail('unterminated string');
  };
  const number = () => {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(pos, pos + 400));
    if (!match || match[0] === '' || match[0] === '-') fail(`unexpected ${describe()}`);
    pos += (match as RegExpExecArray)[0].length;
  };
  const value = (depth: number): void => {
    if (depth > 10_000) fail('nesting too deep');
    ws();
    const c = text[pos];
    if (c === '{') {
      pos++;
      ws();
      if (text[pos] === '}') {
        pos++;
        return;
      }
      for (;;) {
        ws();
        if (text[pos] !== '"') fail(`expected a property name in double quotes, found ${describe()}`);
        string();
        ws();
        if (text[pos] !== ':') fail(`expected ':' after a property name, found ${describe()}`);
        pos++;
        value(depth + 1);
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return;
        }
        fail(`expected ',' or '}' in an object, found ${describe()}`);
      }
    }
    if (c === '[') {
      pos++;
      ws();
      if (text[pos] === ']') {
        pos++;
        return;
      }
      for (;;) {
        value(depth + 1);
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return;
        }
        fail(`expected ',' or ']' in an array, found ${describe()}`);
      }
    }
    if (c === '"') string();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else number();
  };
  try {
    // A byte-order mark is tolerated by the reader (stripped before parsing).
    value(0);
    ws();
    if (pos < text.length) fail(`unexpected ${describe()} after the JSON value`);
    return undefined;
  } catch (error) {
    if (!(error instanceof JsonSyntax)) throw error;
    return { ...lineColumn(text, error.offset), offset: error.offset, message: error.message };
  }
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
