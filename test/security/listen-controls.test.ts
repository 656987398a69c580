/**
 * `gen-webhooks listen` takes unsigned POSTs from any local process or browser page, so nothing it
 * prints from a request may reach the terminal as a control: no ESC (clear screen, retitle), no `\r`
 * (rewrite a line into a fake "✔ all checks passed"), no C1/DEL, no line/paragraph separators or bidi
 * overrides. The real CLI runs as a child process and gets bodies, ids, event names, paths and headers
 * full of them; its whole stdout+stderr is checked, plain, coloured (FORCE_COLOR) and as JSON.
 * `printable` itself gets a property: nothing unsafe survives, and it can be undone (so distinct
 * inputs print distinctly).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { printable } from '../../generator/tools/printable.js';
import { PETSTORE, repoRoot } from '../tools/helpers.js';

/** Controls other than \n and \t, DEL, C1, U+2028/2029, bidi embeddings/overrides/isolates/marks. */
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u;
/** The colours the tool paints itself with (output.ts createStyle). */
const OWN_SGR = /\u001b\[(?:1|2|22|31|32|33|36|39)m/g;

const NASTY = [
  '\u001b[2J\u001b[H',
  '\u001b]0;owned\u0007',
  '\u001b[35m',
  '\r\u2714 all checks passed',
  '\u009b2J',
  '\u007f\u2028\u202e',
];
const nasty = NASTY.join('');

interface Child {
  url: string;
  output(): string;
  stop(): Promise<string>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

async function startListen(args: string[], env: Record<string, string | undefined>): Promise<Child> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'generator/cli.ts', 'listen', '--port', '0', '--no-save', ...args],
    {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (out += c));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /(?:listening on |"url":")(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1]) {
        clearInterval(timer);
        resolve(match[1]);
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`listen exited ${code}: ${out}`));
    });
  });
  return {
    url,
    output: () => out,
    async stop() {
      child.kill('SIGINT');
      await exited;
      return out;
    },
  };
}

/** A raw request over a socket, so paths and header values can carry bytes `http.request` refuses. */
function rawPost(url: string, target: string, headers: string[], body: Buffer): Promise<void> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', reject);
    socket.on('data', () => {});
    socket.on('close', () => resolve());
    const head = [
      `POST ${target} HTTP/1.1`,
      'host: 127.0.0.1',
      'connection: close',
      'content-type: application/json',
      `content-length: ${body.length}`,
      ...headers,
      '',
      '',
    ].join('\r\n');
    socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  });
}

async function sendNasty(url: string): Promise<void> {
  const envelope = (extra: object) =>
    Buffer.from(
      JSON.stringify({
        type: `pet.created${nasty}`,
        id: `msg_${nasty}`,
        timestamp: new Date().toISOString(),
        data: { name: nasty },
        ...extra,
      }),
    );
  // Header values and paths are Latin-1 on the wire: 0x9b is C1 CSI, 0x85 NEL (Node refuses them in
  // paths today, accepts them in header values).
  const c1 = '\u009b2J\u0085';
  await rawPost(url, `/hook/${c1}?q=${c1}`, [`webhook-id: id-${c1}`, `x-note: ${c1}`], envelope({}));
  await rawPost(url, '/hook', [`webhook-id: ${c1}`], envelope({ type: 'pet.created', data: { name: 1 } }));
  await rawPost(url, '/hook', [], envelope({ id: 7 }));
  // Not JSON: the body is shown as text (with its \n kept, every other control escaped).
  await rawPost(url, '/text', ['webhook-id: plain'], Buffer.from(`line one\nline two${nasty}\n`, 'utf8'));
  // A header with ESC itself: Node may refuse it (400) — then nothing of it is printed either.
  await rawPost(url, '/hook', [`webhook-id: esc\u001b[2J`], envelope({}));
  // Raw UTF-8 C1 (U+009B as C2 9B) inside the body's JSON strings.
  await rawPost(url, '/hook', [], Buffer.from(`{"type":"x\u009b2J","id":"y\u009b","data":{}}`, 'utf8'));
}

function expectSafe(output: string): void {
  const bad = [...output].filter((ch) => UNSAFE.test(ch));
  expect(bad.map((ch) => `U+${ch.codePointAt(0)?.toString(16).padStart(4, '0')}`)).toEqual([]);
  expect(output).not.toMatch(/\r/);
}

describe('listen prints no control characters from a request', () => {
  const cases: Array<[string, string[]]> = [
    ['without a contract', []],
    ['with a contract', [PETSTORE]],
  ];
  it.each(cases)(
    'plain text output (%s)',
    async (_name, args) => {
      const listen = await startListen(args, { NO_COLOR: '1' });
      await sendNasty(listen.url);
      const output = await listen.stop();
      expectSafe(output);
      expect(output).not.toContain('\u001b');
      // The text is still there, visibly escaped.
      expect(output).toContain('\\u001b[2J');
      expect(output).toContain('\\u009b2J');
      expect(output).toContain('\\u000d\u2714 all checks passed');
      // \n in a text body is kept (indented under the delivery), not escaped.
      expect(output).toMatch(/line one\n\s+line two/);
    },
    30_000,
  );

  it('coloured output: the only ESC sequences are the tool’s own colours', async () => {
    const listen = await startListen([PETSTORE], { FORCE_COLOR: '1' });
    await sendNasty(listen.url);
    const output = await listen.stop();
    expect(output).toMatch(OWN_SGR);
    const stripped = output.replace(OWN_SGR, '');
    expectSafe(stripped);
    expect(stripped).not.toContain('\u001b');
    expect(output).not.toContain('\u001b[35m');
    expect(output).not.toContain('\u001b[2J');
  }, 30_000);

  it('JSON output: every line parses and carries no raw control', async () => {
    const listen = await startListen([PETSTORE, '--json'], {});
    await sendNasty(listen.url);
    const output = await listen.stop();
    expectSafe(output);
    const lines = output.split('\n').filter((l) => l.startsWith('{'));
    const records = lines.map((l) => JSON.parse(l) as { kind: string; body?: { id?: unknown } });
    // Escaping stays inside JSON strings: the parsed values are the request's exact text.
    expect(records.some((r) => r.kind === 'delivery' && r.body?.id === 'y\u009b')).toBe(true);
  }, 30_000);
});

describe('printable', () => {
  /** Undoes `printable` (the test of it being injective): `\\` → `\`, `\uXXXX` → the character. */
  const unprintable = (text: string) =>
    text.replace(/\\(\\|u[0-9a-f]{4})/g, (_m, esc: string) =>
      esc === '\\' ? '\\' : String.fromCharCode(Number.parseInt(esc.slice(1), 16)),
    );
  // Backslashes, `u`, hex digits and controls next to each other are where an escape could be forged.
  const unit = fc.oneof(
    fc.constantFrom('\\', 'u', '0', '1', 'b', '\r', '\n', '\t', '\u2028', '\u202e', '\u2066', '\u200f'),
    fc.integer({ min: 0, max: 0xa0 }).map((n) => String.fromCharCode(n)),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  );
  const anyText = fc.string({ unit });

  it('leaves nothing a terminal acts on but \\n and \\t', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const shown = printable(text);
        expect([...shown].filter((ch) => UNSAFE.test(ch))).toEqual([]);
        expect(shown.replace(/[\n\t]/g, '')).not.toMatch(/[\u0000-\u001f]/);
      }),
      { numRuns: 2000 },
    );
  });

  it('can be undone, so distinct inputs print distinctly', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(unprintable(printable(text))).toBe(text);
      }),
      { numRuns: 2000 },
    );
    expect(printable('\u001b')).not.toBe(printable('\\u001b'));
  });

  it('keeps ordinary text as it is', () => {
    expect(printable('C:\\Users\\me "q\\"" ✔ café\n\tend')).toBe('C:\\Users\\me "q\\"" ✔ café\n\tend');
    expect(printable('\u001b[2J\r\u009b')).toBe('\\u001b[2J\\u000d\\u009b');
    expect(printable('a\nb', { multiline: false })).toBe('a\\u000ab');
  });
});
