/** Byte helpers shared by signing, receiving and delivery. No Node-only APIs: Web runtimes use them too. */
import { WebhookError } from './errors.js';
import type { RawBody } from './signing/scheme.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

/**
 * The raw body as bytes. Rejects anything that is not a raw body with `parsed_body`: the most common
 * webhook bug is verifying a JSON object a body parser already produced.
 */
/** The UTF-8 bytes of a text (one encoder for the whole runtime). */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

export function toBytes(body: RawBody): Uint8Array {
  if (typeof body === 'string') return encoder.encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new WebhookError(
    'parsed_body',
    `Expected the raw request body (string, Buffer, Uint8Array or ArrayBuffer), got ${describe(body)}. ` +
      'Signatures cover the exact bytes sent; read the body raw (e.g. express.raw()) instead of parsing it first.',
  );
}

/** UTF-8 text of the body (invalid sequences become U+FFFD; use toBytes() for signing). */
export function toText(body: RawBody): string {
  return typeof body === 'string' ? body : decoder.decode(toBytes(body));
}

/** The receiver's answer to a body above its limit (every adapter and the receiver itself). */
export function bodyTooLarge(limit: number): WebhookError {
  return new WebhookError('payload_too_large', `The request body exceeds ${limit} bytes`, {
    details: { limit },
  });
}

/** The chunks of a body read in pieces, as one array (the chunk itself when there is only one). */
export function joinChunks(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object (already parsed?)' : typeof value;
}

/** The body as JSON; `invalid_body` when it is not (the receivers' and the presets' one parser). */
export function parseJson(body: RawBody): unknown {
  const text = toText(body);
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new WebhookError('invalid_body', 'The body is not valid JSON', { cause });
  }
}
