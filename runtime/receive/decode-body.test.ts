/** Form-encoded and multipart webhook bodies (#17), encoded by the platform's own FormData/URLSearchParams. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebhookError } from '../errors.js';
import { decodeBody } from './decode-body.js';

async function multipart(form: FormData): Promise<{ bytes: Uint8Array; type: string }> {
  const request = new Request('http://127.0.0.1/', { method: 'POST', body: form });
  return {
    bytes: new Uint8Array(await request.arrayBuffer()),
    type: request.headers.get('content-type') ?? '',
  };
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookError) return error.code;
    throw error;
  }
  return undefined;
}

describe('decodeBody', () => {
  it('multipart/form-data with a JSON field (Plex-style `payload`) and a file part', async () => {
    const form = new FormData();
    form.append('payload', JSON.stringify({ event: 'media.play', Account: { id: 1 } }));
    form.append('note', 'plain text');
    form.append('thumb', new Blob([new Uint8Array([0, 1, 2, 255])], { type: 'image/jpeg' }), 'thumb.jpg');
    const { bytes, type } = await multipart(form);
    expect(decodeBody({ multipart: true, jsonFields: ['payload'] }, bytes, { 'content-type': type })).toEqual(
      {
        payload: { event: 'media.play', Account: { id: 1 } },
        note: 'plain text',
        thumb: 'AAEC/w==',
      },
    );
  });

  it('form-encoded fields, a repeated name as a list, a JSON field parsed', () => {
    const text = new URLSearchParams([
      ['a', '1'],
      ['a', '2'],
      ['payload', '{"type":"x"}'],
      ['empty', ''],
    ]).toString();
    expect(
      decodeBody({ form: true, jsonFields: ['payload'] }, new TextEncoder().encode(text), {
        'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8',
      }),
    ).toEqual({ a: ['1', '2'], payload: { type: 'x' }, empty: '' });
  });

  it('round-trips any text fields through FormData', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(fc.string({ minLength: 1 }), fc.string()), {
          selector: ([k]) => k,
          maxLength: 6,
        }),
        async (entries) => {
          const form = new FormData();
          for (const [k, v] of entries) form.append(k, v);
          const { bytes, type } = await multipart(form);
          const decoded = decodeBody({ multipart: true }, bytes, { 'content-type': type }) as Record<
            string,
            unknown
          >;
          // FormData normalises line breaks in values to CRLF, as browsers do.
          const expected = Object.fromEntries(
            entries.map(([k, v]) => [k.replace(/\r\n|\r|\n/g, '%0D%0A'), v.replace(/\r\n|\r|\n/g, '\r\n')]),
          );
          expect(Object.keys(decoded).length).toBe(entries.length);
          for (const [k, v] of Object.entries(expected))
            if (Object.hasOwn(decoded, k)) expect(decoded[k]).toBe(v);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('stays JSON for contracts or requests without a declared format; malformed input is invalid_body', async () => {
    const json = new TextEncoder().encode('{"a":1}');
    expect(decodeBody(undefined, json, { 'content-type': 'application/x-www-form-urlencoded' })).toEqual({
      a: 1,
    });
    expect(decodeBody({ form: true }, json, { 'content-type': 'application/json' })).toEqual({ a: 1 });
    const bad = new TextEncoder().encode('--x\r\nno headers');
    expect(
      codeOf(() =>
        decodeBody({ multipart: true }, bad, { 'content-type': 'multipart/form-data; boundary=x' }),
      ),
    ).toBe('invalid_body');
    expect(
      codeOf(() => decodeBody({ multipart: true }, bad, { 'content-type': 'multipart/form-data' })),
    ).toBe('invalid_body');
    const form = new TextEncoder().encode('payload=%7Bnope');
    expect(
      codeOf(() =>
        decodeBody({ form: true, jsonFields: ['payload'] }, form, {
          'content-type': 'application/x-www-form-urlencoded',
        }),
      ),
    ).toBe('invalid_body');
  });
});
