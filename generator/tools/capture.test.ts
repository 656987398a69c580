import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { GeneratorError } from '../errors.js';
import {
  CAPTURE_FORMAT,
  type CapturedDelivery,
  captureBody,
  headerPairs,
  loadCapture,
  saveCapture,
} from './capture.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-capture-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture(body: Uint8Array, extra: Partial<CapturedDelivery> = {}): CapturedDelivery {
  return {
    format: CAPTURE_FORMAT,
    receivedAt: '2026-01-02T03:04:05.678Z',
    method: 'POST',
    path: '/hooks?x=1',
    headers: [
      ['Content-Type', 'application/json'],
      ['X-Dup', 'a'],
      ['X-Dup', 'b'],
    ],
    bodyBase64: Buffer.from(body).toString('base64'),
    event: 'pet.adopted',
    id: 'evt/1',
    verdict: { ok: true, status: 204, checks: [{ name: 'signature', ok: true, detail: 'valid' }] },
    ...extra,
  };
}

describe('capture files', () => {
  it('round-trips arbitrary bytes and header pairs exactly', () => {
    let n = 0;
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 256 }), (bytes) => {
        n += 1;
        const file = saveCapture(dir, capture(bytes), n);
        const loaded = loadCapture(file);
        expect(Buffer.compare(captureBody(loaded), Buffer.from(bytes))).toBe(0);
        expect(loaded.headers).toEqual(capture(bytes).headers);
      }),
      { numRuns: 50 },
    );
    const names = readdirSync(dir);
    expect(
      names.every((name) => /^2026-01-02T03-04-05-678Z-\d{4}-pet\.adopted-evt_1\.json$/.test(name)),
    ).toBe(true);
  });

  it('turns raw header arrays into pairs', () => {
    expect(headerPairs(['A', '1', 'b', '2'])).toEqual([
      ['A', '1'],
      ['b', '2'],
    ]);
  });

  it('explains files that are not captures', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ format: 'something-else' }));
    const error = (() => {
      try {
        loadCapture(bad);
      } catch (e) {
        return e as GeneratorError;
      }
      throw new Error('expected failure');
    })();
    expect(error).toBeInstanceOf(GeneratorError);
    expect(error.pointer).toBe('/format');
    expect(() => loadCapture(join(dir, 'missing.json'))).toThrowError(/cannot read capture file/);
  });
});
