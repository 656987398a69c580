/**
 * Codegen benchmark on GitHub's webhooks description (@octokit/openapi-webhooks):
 * 1. generation time: gen-webhooks (full module: types, zod, contract, sender, receiver, fixtures)
 *    vs openapi-typescript (types only) vs @hey-api/openapi-ts (types plugin only);
 * 2. type-check time of a small consumer (three typed handlers) of our generated module vs the same
 *    consumer written against @octokit/openapi-webhooks-types, each in its own temp project with
 *    skipLibCheck, packages resolved from node_modules as a user's project would: cold (`tsc -p`
 *    processes; total and net of an empty project) and warm (in-process, lib files shared, as in an
 *    editor or `tsc --watch`). Two consumers of ours: types-only (like for like with a types-only
 *    package) and the full receiver (types + runtime + zod validators).
 * Targets: ours ≤ 0.5× openapi-typescript; the types-only consumer warm ≤ 0.3× and cold net of the
 * empty project ≤ 0.6× the octokit-types consumer; the receiver consumer warm ≤ 1.0× (#14).
 * Consumer times are CPU time (user + system) of the checking process, `BENCH_CLOCK=wall` for wall
 * time: on a shared machine wall time also counts the moments tsc was not scheduled at all.
 * The generators run interleaved, one process per tool per round (the order rotating each round), so
 * drift in machine load hits every tool alike; each process runs its tool `1 + RUNS` times (the first
 * is that process's cold run, the others its warm runs). The load average is printed before, per
 * round and after, and a met target counts only when the machine was not loaded (bench/lib/load.ts).
 * Run: npm run bench:codegen   (ROUNDS, RUNS, COLD_RUNS, WARM_RUNS for more samples;
 *      BENCH_ONLY=generate|consumer for one half; KEEP=1 keeps the consumer projects)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from '../generator/generate.js';
import { loadAverage, verdict as loadVerdict, startLoad } from './lib/load.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const spec = require.resolve('@octokit/openapi-webhooks/generated/api.github.com.json');
const RUNS = Number(process.env.RUNS ?? 3);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-bench-'));
const tscBin = path.join(repoRoot, 'node_modules/typescript/bin/tsc');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

const ms = (n: number) => `${n.toFixed(0).padStart(6)} ms`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const machine = startLoad();
const verdict = (value: number, limit: number) => loadVerdict(value <= limit, machine);

const ONLY = process.env.BENCH_ONLY;
if (ONLY !== undefined && ONLY !== 'generate' && ONLY !== 'consumer') {
  throw new Error(`BENCH_ONLY=${ONLY}: expected generate or consumer`);
}

// ---------------------------------------------------------------------------------------------
if (ONLY !== 'consumer') benchGenerators();
if (ONLY !== 'generate') await benchConsumers();
console.log(`${loadAverage()} after the run`);
if (process.env.KEEP) console.log(`kept ${tmp}`);
else rmSync(tmp, { recursive: true, force: true });

function benchGenerators(): void {
  const ROUNDS = Number(process.env.ROUNDS ?? 3);
  console.log(
    `Code generation from ${path.relative(repoRoot, spec)} (${(readFileSync(spec).length / 1e6).toFixed(1)} MB): ` +
      `${ROUNDS} rounds, one process per tool per round (order rotating), ${RUNS} warm runs after each cold one`,
  );
  const tools = ['gen-webhooks', 'openapi-typescript', 'hey-api'] as const;
  type Tool = (typeof tools)[number];
  const toolRunner = path.join(repoRoot, 'bench/lib/codegen-tool.ts');
  const tsxCli = require.resolve('tsx/cli');
  const gen = Object.fromEntries(
    tools.map((t) => [t, { cold: [] as number[], warm: [] as number[] }]),
  ) as Record<Tool, { cold: number[]; warm: number[] }>;
  for (let round = 0; round < ROUNDS; round++) {
    const order = tools.map((_, i) => tools[(i + round) % tools.length] as Tool);
    for (const tool of order) {
      const out = mkdtempSync(path.join(tmp, `${tool}-`));
      const child = spawnSync(process.execPath, [tsxCli, toolRunner, tool, spec, out, String(RUNS + 1)], {
        cwd: repoRoot,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      const line = /@samples (\[.*\])/.exec(child.stdout)?.[1];
      if (child.status !== 0 || line === undefined)
        throw new Error(`${tool} failed:\n${child.stdout}${child.stderr}`);
      const [cold = 0, ...warm] = JSON.parse(line) as number[];
      gen[tool].cold.push(cold);
      gen[tool].warm.push(median(warm));
      rmSync(out, { recursive: true, force: true });
    }
    console.log(`  round ${round + 1} of ${ROUNDS} (${order.join(', ')}): ${loadAverage()}`);
  }
  const label = {
    'gen-webhooks': 'gen-webhooks (full module, written to disk)',
    'openapi-typescript': 'openapi-typescript 7 (types only)',
    'hey-api': '@hey-api/openapi-ts (types plugin only)',
  };
  for (const tool of tools) {
    console.log(
      `  ${label[tool].padEnd(44)} cold ${ms(median(gen[tool].cold))}  warm ${ms(median(gen[tool].warm))}  (medians over rounds)`,
    );
  }
  const perRoundRatio = (a: Tool, b: Tool, k: 'cold' | 'warm') =>
    median(gen[a][k].map((v, i) => v / (gen[b][k][i] ?? Number.NaN)));
  const ours = {
    cold: perRoundRatio('gen-webhooks', 'openapi-typescript', 'cold'),
    warm: perRoundRatio('gen-webhooks', 'openapi-typescript', 'warm'),
  };
  console.log(
    `  ratio gen-webhooks / openapi-typescript (median of per-round ratios): cold ${ours.cold.toFixed(2)}×, warm ${ours.warm.toFixed(2)}× ` +
      `(target ≤ 0.50×: ${verdict(ours.warm, 0.5)})`,
  );
  console.log(
    `  ratio gen-webhooks / @hey-api/openapi-ts: cold ${perRoundRatio('gen-webhooks', 'hey-api', 'cold').toFixed(2)}×, warm ${perRoundRatio('gen-webhooks', 'hey-api', 'warm').toFixed(2)}×`,
  );
}

// ---------------------------------------------------------------------------------------------
async function benchConsumers(): Promise<void> {
  console.log('\ntsc --noEmit of a small consumer (skipLibCheck, strict, NodeNext)');

  const TSCONFIG = {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    },
    include: ['*.ts'],
  };

  function linkPackage(project: string, name: string, target: string): void {
    const dest = path.join(project, 'node_modules', name);
    mkdirSync(path.dirname(dest), { recursive: true });
    symlinkSync(target, dest, 'dir');
  }

  /** Makes `dir` a consumer project: the shared tsconfig, ESM, and `consumer.ts`. */
  function writeProject(dir: string, consumer: string): void {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(path.join(dir, 'consumer.ts'), consumer);
  }

  // A user installs gen-webhooks: @gen-webhooks/runtime arrives as .d.ts behind its package.json's
  // `exports` (its declarations built here into a copy of the package; no JavaScript is needed).
  const pkg = path.join(tmp, 'runtime-pkg');
  mkdirSync(pkg, { recursive: true });
  // Type errors in the runtime (if any) do not stop declaration emit; they are `npm run typecheck`'s job.
  runQuiet([
    tscBin,
    '-p',
    path.join(repoRoot, 'runtime/tsconfig.build.json'),
    '--emitDeclarationOnly',
    '--outDir',
    path.join(pkg, 'dist'),
  ]);

  function runQuiet(args: string[]): void {
    try {
      execFileSync(process.execPath, args, { stdio: 'pipe' });
    } catch {
      // exit code only; the files were written
    }
  }
  writeFileSync(path.join(pkg, 'package.json'), readFileSync(path.join(repoRoot, 'runtime/package.json')));

  // The same three handlers in every consumer; only where their types come from differs.
  const HANDLERS = `  'issues.opened': ({ data }) => \`\${data.repository.full_name}#\${data.issue.number}: \${data.issue.title}\`,
  'pull_request.closed': ({ data }) => data.pull_request.merged === true,
  push: ({ data }) => data.commits.map((commit) => commit.id),
`;

  /** The types-only consumers' body: a Handlers interface typed by `payload(event)`, and HANDLERS. */
  const typedHandlers = (payload: (event: string) => string) => `interface Handlers {
${['issues.opened', 'pull_request.closed', 'push']
  .map((event) => `  '${event}'?: (event: { data: ${payload(event)} }) => unknown;\n`)
  .join('')}}

export const handlers: Handlers = {
${HANDLERS}};
`;

  const oursProject = path.join(tmp, 'consumer-ours');
  await generate({ inputs: [spec], out: oursProject, cwd: repoRoot });
  const folder = (await generate({ inputs: [spec], out: oursProject, cwd: repoRoot, check: true }))
    .contracts[0]?.name;
  linkPackage(oursProject, '@gen-webhooks/runtime', pkg);
  linkPackage(oursProject, 'zod', path.dirname(require.resolve('zod/package.json')));
  writeProject(
    oursProject,
    `import { createReceiver } from './${folder}/index.js';

export const receiver = createReceiver({
  secret: 'secret',
  dedupe: false,
  handlers: {
${HANDLERS.replace(/^(?=.)/gm, '  ')}  },
});
`,
  );

  // Like for like with octokit's types-only package: the same handlers typed from our types.ts alone
  // (no zod, no runtime), e.g. a service that shares handler code with the generated receiver.
  const typesProject = path.join(tmp, 'consumer-ours-types');
  await generate({ inputs: [spec], out: typesProject, cwd: repoRoot });
  writeProject(
    typesProject,
    `import type { Events } from './${folder}/types.js';

${typedHandlers((event) => `Events['${event}']`)}`,
  );

  const octokitProject = path.join(tmp, 'consumer-octokit');
  linkPackage(
    octokitProject,
    '@octokit/openapi-webhooks-types',
    path.dirname(require.resolve('@octokit/openapi-webhooks-types/package.json')),
  );
  writeProject(
    octokitProject,
    `import type { components } from '@octokit/openapi-webhooks-types';

type Schemas = components['schemas'];
${typedHandlers((event) => `Schemas['webhook-${event.replace(/[._]/g, '-')}']`)}`,
  );

  /**
   * `runs` rounds of `measure` over every project, one of each per round (so drift in machine load
   * hits every project alike), after one unrecorded pass that warms what the measure reuses.
   */
  function interleaved<K extends string>(
    projects: Record<K, string>,
    runs: number,
    measure: (project: string) => number,
  ): Record<K, number[]> {
    const entries = Object.entries(projects) as [K, string][];
    for (const [, project] of entries) measure(project);
    const samples = Object.fromEntries(entries.map(([name]) => [name, [] as number[]])) as Record<
      K,
      number[]
    >;
    for (let run = 0; run < runs; run++) {
      for (const [name, project] of entries) samples[name].push(measure(project));
      if (run === runs - 1 || (run + 1) % Math.ceil(runs / 3) === 0) {
        console.log(`    round ${run + 1} of ${runs}: ${loadAverage()}`);
      }
    }
    return samples;
  }

  const WALL = process.env.BENCH_CLOCK === 'wall';
  /** CPU ms of this process so far (user + system), or wall ms with BENCH_CLOCK=wall. */
  const clock = () => {
    if (WALL) return performance.now();
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };

  // tsc in a child that prints its own CPU time when it exits (tsc's bin reads process.argv).
  const tscTimed = path.join(tmp, 'tsc-timed.cjs');
  writeFileSync(
    tscTimed,
    `process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('\\n@cpu ' + (u.user + u.system) / 1000 + '\\n'); });
process.argv.splice(1, 1);
require(process.argv[1]);
`,
  );

  function tsc(project: string): number {
    const start = performance.now();
    const child = spawnSync(process.execPath, [tscTimed, tscBin, '-p', project], { encoding: 'utf8' });
    const wall = performance.now() - start;
    if (child.status !== 0) throw new Error(`tsc -p ${project} failed:\n${child.stdout}${child.stderr}`);
    const cpu = Number(/@cpu ([\d.]+)/.exec(child.stderr)?.[1] ?? Number.NaN);
    return WALL ? wall : cpu;
  }

  // 1. A cold `tsc -p` process per project, as in CI. tsc's fixed cost (starting node, loading
  //    typescript.js, parsing lib.*.d.ts) is the same for every project and is most of the octokit
  //    consumer's time, so the ratios are also printed net of an empty project's time. The projects
  //    run interleaved, one of each per round, and each round's net ratio is taken against that
  //    round's empty project: drift in machine load then hits the numerator and denominator alike.
  const emptyProject = path.join(tmp, 'consumer-empty');
  writeProject(emptyProject, 'export const handlers = {};\n');
  const COLD_RUNS = Number(process.env.COLD_RUNS ?? 7);
  const coldProjects = {
    empty: emptyProject,
    types: typesProject,
    receiver: oursProject,
    octokit: octokitProject,
  };
  type ColdName = keyof typeof coldProjects;
  const cold = interleaved(coldProjects, COLD_RUNS, tsc); // warm-up pass: the file cache
  const perRound = (f: (i: number) => number) => median(cold.empty.map((_, i) => f(i)));
  const at = (name: ColdName, i: number) => cold[name][i] ?? 0;
  const netRatio = (name: ColdName) =>
    perRound(
      (i) => Math.max(1, at(name, i) - at('empty', i)) / Math.max(1, at('octokit', i) - at('empty', i)),
    );
  const totalRatio = (name: ColdName) => perRound((i) => at(name, i) / at('octokit', i));
  console.log(
    `  cold: one \`tsc -p\` process per project, interleaved, ${COLD_RUNS} rounds (medians, ${WALL ? 'wall' : 'CPU'} time)`,
  );
  console.log(
    `    empty project ${ms(median(cold.empty))}  types-only consumer ${ms(median(cold.types))}  ` +
      `receiver consumer ${ms(median(cold.receiver))}  octokit-types consumer ${ms(median(cold.octokit))}`,
  );
  console.log(
    `  cold, total:  types-only ${totalRatio('types').toFixed(2)}×, receiver ${totalRatio('receiver').toFixed(2)}× ` +
      `of octokit-types (an empty project alone is ${totalRatio('empty').toFixed(2)}×, so ≤ 0.50× is out of reach for any consumer)`,
  );
  console.log(
    `  cold, net of the fixed cost:  types-only ${netRatio('types').toFixed(2)}× (target ≤ 0.60×: ${verdict(
      netRatio('types'),
      0.6,
    )}), receiver ${netRatio('receiver').toFixed(2)}×`,
  );

  // 2. Warm, in one process: what an editor (tsserver) or `tsc --watch` pays for the consumer. lib
  //    files are parsed once and shared, as they are there; each run builds a new program and checks it.
  const ts = (await import('typescript')).default;
  const libFiles = new Map<string, import('typescript').SourceFile>();
  function checkInProcess(project: string): number {
    const config = ts.getParsedCommandLineOfConfigFile(
      path.join(project, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    );
    if (!config) throw new Error(`cannot read ${project}/tsconfig.json`);
    const host = ts.createCompilerHost(config.options);
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (file, languageVersion, onError) => {
      if (!file.includes('/typescript/lib/')) return read(file, languageVersion, onError);
      let source = libFiles.get(file);
      if (!source) {
        source = read(file, languageVersion, onError);
        if (source) libFiles.set(file, source);
      }
      return source;
    };
    const start = clock();
    const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host });
    const diagnostics = ts.getPreEmitDiagnostics(program);
    const elapsed = clock() - start;
    if (diagnostics.length > 0) {
      throw new Error(ts.formatDiagnostics(diagnostics, { ...host, getNewLine: () => '\n' }));
    }
    return elapsed;
  }
  const WARM_RUNS = Number(process.env.WARM_RUNS ?? 9);
  const warmProjects = { types: typesProject, receiver: oursProject, octokit: octokitProject };
  const warmSamples = interleaved(warmProjects, WARM_RUNS, checkInProcess); // warm-up pass: JIT and lib files
  const warm = {
    types: median(warmSamples.types),
    receiver: median(warmSamples.receiver),
    octokit: median(warmSamples.octokit),
  };
  console.log(
    `  warm: in-process program + check, lib files shared (median of ${WARM_RUNS}, ${WALL ? 'wall' : 'CPU'} time)`,
  );
  console.log(
    `    types-only consumer ${ms(warm.types)}  receiver consumer ${ms(warm.receiver)}  octokit-types consumer ${ms(warm.octokit)}`,
  );
  console.log(
    `  warm:  types-only ${ratio(warm.types, warm.octokit)} (target ≤ 0.30×: ${verdict(warm.types / warm.octokit, 0.3)}), ` +
      `receiver ${ratio(warm.receiver, warm.octokit)} (target ≤ 1.00×: ${verdict(warm.receiver / warm.octokit, 1)}) ` +
      'of octokit-types — the receiver consumer also parses its validators (zod and schemas.ts), which a ' +
      'types-only package does not have',
  );
}
