/**
 * Size of the runtime code a Web receiver ships (not a timed test): esbuild bundles, minified, with
 * workerd's export conditions (`@gen-webhooks/runtime` and its `/generated` entry → their Web builds) and zod external, then raw
 * and gzip (level 9) bytes against the 10 KB gzip target, and the largest contributors. The target
 * is the runtime code an app that receives with a generated module ships: for a contract signed with
 * Standard Webhooks, with HMAC (Petstore) and with the GitHub preset, the generator's own
 * `receiver.ts` (emitReceiverFile), its `./contract.js` external, is bundled twice, once for an app
 * that imports `createReceiver` and once for one that imports `createParser` (a bundler keeps only
 * the factory an app imports), so each bundle is exactly the runtime parts that factory needs. The
 * whole `receiver.ts` (both factories) and the runtime's own `createReceiver`, which takes any
 * contract (every scheme and preset), are shown beside them.
 *
 *   npx tsx bench/size.bench.ts        (SIZE_TOP=n lists n contributors per case; default 12)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { RUNTIME_PACKAGE_IMPORT } from '../generator/emit/index.js';
import { emitReceiverFile } from '../generator/emit/receiver-file.js';
import { generate } from '../generator/generate.js';
import type { ContractModel } from '../generator/model.js';
import { loadContract } from '../generator/parse/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGET_GZIP = 10 * 1024;
const top = Number(process.env.SIZE_TOP ?? 12);

/** `@gen-webhooks/runtime` as the workerd condition resolves it, on the sources (no build needed). */
const webRuntime: Plugin = {
  name: 'web-runtime',
  setup(b) {
    b.onResolve({ filter: /^@gen-webhooks\/runtime(\/web)?$/ }, () => ({
      path: path.join(root, 'runtime/web.ts'),
    }));
    // The entry generated modules import, as its Web conditions resolve it.
    b.onResolve({ filter: /^@gen-webhooks\/runtime\/generated$/ }, () => ({
      path: path.join(root, 'runtime/generated-web.ts'),
    }));
    // A bare generated receiver.ts: its contract (events, schemas) is not runtime code.
    b.onResolve({ filter: /^\.\/contract\.js$/ }, (args) =>
      args.importer.includes('receiver-') ? { path: args.path, external: true } : undefined,
    );
  },
};

/** `counted`: a case the target applies to (the others are shown for comparison). */
async function measure(label: string, entry: string, counted = false): Promise<number> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    external: ['zod'],
    plugins: [webRuntime],
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  const gzip = gzipSync(code, { level: 9 }).length;
  const verdict = counted
    ? `; ${gzip <= TARGET_GZIP ? 'within' : 'OVER'} the ${TARGET_GZIP / 1024} KB target`
    : '';
  console.log(
    `${label}\n  ${code.length} B minified, ${gzip} B gzip (${(gzip / 1024).toFixed(1)} KB${verdict})`,
  );
  const output = Object.values(result.metafile.outputs)[0];
  const inputs = Object.entries(output?.inputs ?? {}).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput);
  for (const [file, { bytesInOutput }] of inputs.slice(0, top)) {
    console.log(`    ${String(bytesInOutput).padStart(6)} B  ${path.relative(root, path.resolve(file))}`);
  }
  return gzip;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gw-size-'));
try {
  await generate({ inputs: ['schemas/petstore.openapi.yaml'], out: path.join(tmp, 'gen'), cwd: root });
  const write = (name: string, text: string): string => {
    writeFileSync(path.join(tmp, name), text);
    return path.join(tmp, name);
  };
  console.log(`esbuild, minified, conditions workerd/worker/browser, zod external\n`);
  const petstore = await loadContract(path.join(root, 'schemas/petstore.openapi.yaml'));
  // The same contract signed another way: the receiver file depends on the signature and selector.
  const variants: [string, ContractModel][] = [
    [
      'the runtime code of a generated Standard Webhooks receiver (contract external)',
      { ...petstore, signature: { kind: 'standard-webhooks' } },
    ],
    ['the runtime code of a generated HMAC receiver (Petstore; contract external)', petstore],
    [
      'the runtime code of a generated GitHub-preset receiver (contract external)',
      {
        ...petstore,
        signature: { kind: 'preset', preset: 'github' },
        envelope: { kind: 'bare' },
        selector: { kind: 'header', header: 'X-GitHub-Event', bodyField: 'action' },
      },
    ],
  ];
  const sizes: number[] = [];
  for (const [index, [label, model]] of variants.entries()) {
    const module = write(`receiver-${index}.ts`, emitReceiverFile(model, '', RUNTIME_PACKAGE_IMPORT));
    for (const factory of ['createReceiver', 'createParser']) {
      const app = write(
        `app-${index}-${factory}.ts`,
        `export { ${factory} } from './receiver-${index}.js';\n`,
      );
      sizes.push(await measure(`${label}: an app importing ${factory}`, app, true));
    }
    await measure(`${label}: the whole receiver.ts (both factories)`, module);
  }
  await measure(
    "the runtime's createReceiver (any contract: every scheme, every preset but Twilio, body decoders)",
    write('any-contract.ts', "export { createReceiver } from '@gen-webhooks/runtime';\n"),
  );
  await measure(
    'the generated Petstore receiver module (its contract, schemas and the runtime; zod external)',
    write('petstore.ts', "export { createReceiver } from './gen/petstore-openapi/receiver.js';\n"),
  );
  const worst = Math.max(...sizes);
  console.log(
    `\ngenerated receivers' runtime code (each factory as an app imports it): at most ${worst} B gzip (${(worst / 1024).toFixed(1)} KB), target ${TARGET_GZIP} B: ${worst <= TARGET_GZIP ? 'meets' : 'MISSES'}`,
  );
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
