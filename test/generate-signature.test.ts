/** The per-contract signature override on the command line and in the config (#17). */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runGenerate } from '../generator/commands/generate.js';
import type { ToolIo } from '../generator/tools/output.js';
import { repoRoot } from './types/typecheck.js';

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'signature-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io(): ToolIo & { err: () => string } {
  let err = '';
  return {
    stdout: { write: () => true },
    stderr: { write: (chunk: string) => (err += chunk) },
    env: {},
    err: () => err,
  };
}

const batches = path.join(repoRoot, 'test/fixtures/specs/openapi31/batches.yaml');
const media = path.join(repoRoot, 'test/fixtures/specs/openapi32/openapi.yaml');
const contract = (out: string, name: string) => readFileSync(path.join(out, name, 'contract.js'), 'utf8');

describe('--signature and the config', () => {
  it('applies a named override to its contract only, and an unnamed one to all', async () => {
    const out = path.join(dir, 'named');
    const code = await runGenerate(
      [
        batches,
        media,
        '--out',
        out,
        '--quiet',
        '--signature',
        'batches=hmac:X-Batch-Signature,sha256,hex,prefix=sha256=',
      ],
      io(),
    );
    expect(code).toBe(0);
    const flat = contract(out, 'batches').replace(/\s+/g, ' ');
    expect(flat).toContain(
      "signature: { kind: 'hmac', header: 'X-Batch-Signature', algorithm: 'sha256', encoding: 'hex', prefix: 'sha256=', }",
    );
    // The HMAC scheme signs no timestamp header: the body's `created_at` is now demanded.
    expect(flat).toContain(
      "envelope: { kind: 'envelope', fields: { timestamp: 'created_at' }, timestampFormat: 'unix', absent: ['id'] }",
    );
    expect(contract(out, 'media-server-hooks')).toContain("signature: { kind: 'standard-webhooks' }");
    const all = path.join(dir, 'all');
    expect(await runGenerate([batches, media, '--out', all, '--quiet', '--signature', 'svix'], io())).toBe(0);
    expect(contract(all, 'batches')).toContain("signature: { kind: 'preset', preset: 'svix' }");
    expect(contract(all, 'media-server-hooks')).toContain("signature: { kind: 'preset', preset: 'svix' }");
  });

  it('reads `signatures` from the config; the flag wins', async () => {
    const config = path.join(dir, 'gen-webhooks.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        inputs: [batches],
        out: 'from-config',
        signatures: { batches: 'hmac:X-A,base64', '*': { kind: 'none' } },
      }),
    );
    expect(await runGenerate(['--config', config, '--quiet'], io())).toBe(0);
    expect(contract(path.join(dir, 'from-config'), 'batches')).toContain("header: 'X-A'");
    expect(await runGenerate(['--config', config, '--quiet', '--signature', 'batches=none'], io())).toBe(0);
    expect(contract(path.join(dir, 'from-config'), 'batches')).toContain("signature: { kind: 'none' }");
  });

  it('refuses a scheme it cannot read, saying what it expects (exit 2, nothing written)', async () => {
    const out = path.join(dir, 'bad');
    const err = io();
    expect(await runGenerate([batches, '--out', out, '--signature', 'hmac:X,md5'], err)).toBe(2);
    expect(err.err()).toContain('"hmac:X,md5" is not a signature scheme');
    expect(err.err()).toContain('hmac:<header>');
    const config = path.join(dir, 'bad.config.json');
    writeFileSync(config, JSON.stringify({ inputs: [batches], signatures: { batches: 'sha256' } }));
    const fromConfig = io();
    expect(await runGenerate(['--config', config], fromConfig)).toBe(2);
    expect(fromConfig.err()).toContain("signatures['batches']");
  });
});
