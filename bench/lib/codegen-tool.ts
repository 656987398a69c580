/**
 * One code generator in its own process, for bench/codegen.bench.ts: `tsx bench/lib/codegen-tool.ts
 * <tool> <spec> <out> <runs>` runs it `runs` times on the spec and prints `@samples [ms, …]` (the
 * first is the cold run of this process). CPU time of this process (user + system), or wall time with
 * BENCH_CLOCK=wall.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generate } from '../../generator/generate.js';

const [tool = '', spec = '', out = '', runsText = '1'] = process.argv.slice(2);
const WALL = process.env['BENCH_CLOCK'] === 'wall';
const clock = (): number => {
  if (WALL) return performance.now();
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function once(run: number): Promise<void> {
  const dir = path.join(out, `${tool}-${run}`);
  if (tool === 'gen-webhooks') {
    await generate({ inputs: [spec], out: dir, cwd: process.cwd() });
  } else if (tool === 'openapi-typescript') {
    const { default: openapiTS, astToString } = await import('openapi-typescript');
    writeFileSync(`${dir}.ts`, astToString(await openapiTS(readFileSync(spec, 'utf8'))));
  } else if (tool === 'hey-api') {
    const { createClient } = await import('@hey-api/openapi-ts');
    await createClient({
      input: spec,
      output: { path: dir },
      plugins: ['@hey-api/typescript'],
      logs: { level: 'silent' },
    });
  } else {
    throw new Error(`unknown tool ${tool}`);
  }
}

const samples: number[] = [];
for (let run = 0; run < Number(runsText); run++) {
  const start = clock();
  await once(run);
  samples.push(clock() - start);
}
console.log(`@samples ${JSON.stringify(samples)}`);
