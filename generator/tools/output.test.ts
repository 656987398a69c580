import { describe, expect, it } from 'vitest';
import { GeneratorError } from '../errors.js';
import { createProgress, createStyle, formatMs, formatToolError, runTool, truncate } from './output.js';

function stream(isTTY: boolean) {
  let text = '';
  return { isTTY, write: (chunk: string) => (text += chunk), text: () => text };
}

describe('createStyle', () => {
  it('colours only a TTY without NO_COLOR (FORCE_COLOR wins)', () => {
    expect(createStyle(stream(true), {}).red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(createStyle(stream(false), {}).red('x')).toBe('x');
    expect(createStyle(stream(true), { NO_COLOR: '1' }).red('x')).toBe('x');
    expect(createStyle(stream(true), { NO_COLOR: '' }).enabled).toBe(true);
    expect(createStyle(stream(true), { TERM: 'dumb' }).enabled).toBe(false);
    expect(createStyle(stream(false), { FORCE_COLOR: '1' }).enabled).toBe(true);
    expect(createStyle(stream(false), { FORCE_COLOR: '0' }).enabled).toBe(false);
  });
});

describe('createProgress', () => {
  it('writes to stderr only on a TTY and clears the line when done', () => {
    const tty = stream(true);
    const progress = createProgress({ stdout: stream(false), stderr: tty, env: {} }, 'replay', 10);
    progress.update(3);
    progress.done();
    expect(tty.text()).toBe('\r\u001b[2Kreplay 3/10\r\u001b[2K');
    const pipe = stream(false);
    const silent = createProgress({ stdout: stream(false), stderr: pipe, env: {} }, 'replay', 10);
    silent.update(3);
    silent.done();
    expect(pipe.text()).toBe('');
  });
});

describe('errors and formatting', () => {
  it('formats a GeneratorError as one line naming the command once', () => {
    const error = new GeneratorError('invalid_argument', 'send: bad\nthing', {
      file: 'a.json',
      pointer: '/x',
      expected: 'good',
    });
    expect(formatToolError('send', error)).toBe(
      'gen-webhooks send: a.json#/x: bad thing (expected good) [invalid_argument]',
    );
  });

  it('runTool: exit 2 for usage errors, 1 for failed checks, JSON error with --json, rethrows the rest', async () => {
    const err = stream(false);
    const out = stream(false);
    const io = { stdout: out, stderr: err, env: {} };
    expect(
      await runTool('x', io, true, async () =>
        Promise.reject(new GeneratorError('invalid_argument', 'x: nope')),
      ),
    ).toBe(2);
    expect(JSON.parse(out.text())).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument', message: 'x: nope' },
    });
    expect(
      await runTool('x', io, false, async () => Promise.reject(new GeneratorError('check_failed', 'bad'))),
    ).toBe(1);
    await expect(runTool('x', io, false, async () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(err.text()).toBe('gen-webhooks x: nope [invalid_argument]\ngen-webhooks x: bad [check_failed]\n');
  });

  it('truncates and formats durations', () => {
    expect(truncate('abcdef', 3)).toBe('abc… (3 more characters)');
    expect(truncate('abc', 3)).toBe('abc');
    expect(formatMs(12.4)).toBe('12ms');
    expect(formatMs(1250)).toBe('1.25s');
    expect(formatMs(12_500)).toBe('12.5s');
    expect(formatMs(125_000)).toBe('2m 05s');
  });
});
