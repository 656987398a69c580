/**
 * Contract text → source text. Whatever a contract's author (or its file's name) says — titles,
 * descriptions, event names, enum values, property names, paths — reaches generated code only
 * through these functions, so no input can end a comment or a string early and become code that
 * runs when the module is imported. Line terminators are the four ECMAScript ones (LF, CR, U+2028,
 * U+2029): a `//` comment ends at any of them, and a string literal may not contain the first two.
 */

const LINE_TERMINATOR = /\r\n|[\n\r\u2028\u2029]/;
/** Controls other than tab, NEL (which some editors break lines on), and the line terminators. */
const UNPRINTABLE = /[\u0000-\u0008\u000a-\u001f\u007f\u0085\u2028\u2029]/g;

function hex4(ch: string): string {
  return `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;
}

function visible(text: string): string {
  return text.replace(UNPRINTABLE, (ch) => (ch === '\n' ? '\\n' : ch === '\r' ? '\\r' : hex4(ch)));
}

/** Text for the rest of a `//` comment line: line terminators and controls written as `\n`, `\u2028`, …. */
export function lineCommentText(text: string): string {
  return visible(text);
}

/** A star-slash inside a block comment would end it; `*\/` reads the same to people and means nothing to the parser. */
function defuse(line: string): string {
  return line.replace(/\*\//g, '*\\/');
}

/** One line of a block comment: line breaks become spaces, controls escapes, a star-slash defused. */
export function blockCommentLine(text: string): string {
  return defuse(visible(text.split(LINE_TERMINATOR).join(' ')));
}

/** The lines of a block comment for `text`, split at every line terminator, each made safe as above. */
export function blockCommentLines(text: string): string[] {
  return text.split(LINE_TERMINATOR).map((line) => defuse(visible(line)));
}

/** Single-quoted JS string literal (escapes quotes, backslashes, line terminators, controls). */
export function stringLiteral(value: string): string {
  let out = "'";
  for (const ch of value) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === "'") out += "\\'";
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f || code === 0x2028 || code === 0x2029)
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    else if (code >= 0xd800 && code <= 0xdfff)
      out += `\\u${code.toString(16)}`; // lone surrogate
    else out += ch;
  }
  return `${out}'`;
}

const ASCII_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Property key text valid both in a TS type literal/interface and in a JS object literal: bare when
 * it is an ASCII identifier, else a quoted string. `__proto__` is written `['__proto__']` because a
 * plain or quoted `__proto__` key in an object literal sets the prototype instead of a property.
 */
export function propertyKey(name: string): string {
  if (name === '__proto__') return "['__proto__']";
  return ASCII_IDENTIFIER.test(name) ? name : stringLiteral(name);
}

/** An always-quoted object literal key (event names), with the same `__proto__` rule as propertyKey. */
export function quotedKey(name: string): string {
  return name === '__proto__' ? "['__proto__']" : stringLiteral(name);
}
