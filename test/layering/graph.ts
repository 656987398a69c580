/**
 * The import graph of the generator and the runtime, read with the TypeScript parser, and the layering
 * rules checked on it (test/layering.test.ts runs them in `npm test`):
 *
 * - the runtime never imports the generator;
 * - the generator imports runtime values only from `generator/tools/` (type imports anywhere);
 * - the generator's API (`generator/index.ts`) does not load the developer tools;
 * - no import cycle, type-only imports included;
 * - nothing a Web entry (`runtime/web.ts`, `runtime/generated-web.ts`) loads imports a `node:*` module;
 * - the runtime imports no package but `zod`, and that only in `runtime/manage/` (an optional peer).
 *
 * An edge is type-only for `import type` / `export type … from` and `import('…')` type queries;
 * `import { type A }` is a value edge (verbatimModuleSyntax keeps the import).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface Edge {
  readonly from: string;
  /** A project file (relative to the root) or a bare specifier such as `node:crypto` or `zod`. */
  readonly to: string;
  readonly typeOnly: boolean;
}

export interface Graph {
  readonly files: readonly string[];
  readonly edges: readonly Edge[];
}

export interface LayeringOptions {
  /** Bare specifiers that name project files (the tsconfig `paths`), e.g. `@gen-webhooks/runtime`. */
  readonly aliases: Readonly<Record<string, string>>;
  /** Folders (relative to the root) whose `.ts` files are read. Default generator and runtime. */
  readonly folders?: readonly string[];
}

const SKIP_DIRS = new Set(['node_modules', 'dist', '__fixtures__']);

function listSources(root: string, folder: string, out: string[]): void {
  for (const entry of readdirSync(path.join(root, folder), { withFileTypes: true })) {
    const rel = `${folder}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) listSources(root, rel, out);
    } else if (
      entry.name.endsWith('.ts') &&
      !/\.test(-d)?\.ts$/.test(entry.name) &&
      !entry.name.endsWith('.d.ts')
    ) {
      out.push(rel);
    }
  }
}

/** Project-relative file for a specifier, or the bare specifier itself. */
function resolve(
  from: string,
  spec: string,
  files: ReadonlySet<string>,
  aliases: LayeringOptions['aliases'],
): string {
  const alias = aliases[spec];
  if (alias !== undefined) return alias;
  if (!spec.startsWith('.')) return spec;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  for (const candidate of [joined.replace(/\.js$/, '.ts'), `${joined}.ts`, `${joined}/index.ts`]) {
    if (files.has(candidate)) return candidate;
  }
  return joined;
}

function importsOf(file: string, text: string): { spec: string; typeOnly: boolean }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: { spec: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ spec: node.moduleSpecifier.text, typeOnly: node.importClause?.isTypeOnly === true });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({ spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal))
        found.push({ spec: arg.literal.text, typeOnly: true });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ spec: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export function readGraph(root: string, options: LayeringOptions): Graph {
  const list: string[] = [];
  for (const folder of options.folders ?? ['generator', 'runtime']) listSources(root, folder, list);
  // Shared test suites live beside the code they test; they are not part of either layer.
  const files = list
    .filter((file) => !/from 'vitest'/.test(readFileSync(path.join(root, file), 'utf8')))
    .sort();
  const set = new Set(files);
  const edges: Edge[] = [];
  for (const file of files) {
    for (const { spec, typeOnly } of importsOf(file, readFileSync(path.join(root, file), 'utf8'))) {
      edges.push({ from: file, to: resolve(file, spec, set, options.aliases), typeOnly });
    }
  }
  return { files, edges };
}

const inRuntime = (file: string) => file.startsWith('runtime/');
const inGenerator = (file: string) => file.startsWith('generator/');
const isNode = (spec: string) => spec.startsWith('node:');

/** Files reachable from `entry` over value edges, each with the path that reached it. */
function reachable(graph: Graph, entry: string): Map<string, readonly string[]> {
  const paths = new Map<string, readonly string[]>([[entry, [entry]]]);
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const edge of graph.edges) {
      if (edge.from !== file || edge.typeOnly || paths.has(edge.to) || !graph.files.includes(edge.to))
        continue;
      paths.set(edge.to, [...(paths.get(file) ?? []), edge.to]);
      queue.push(edge.to);
    }
  }
  return paths;
}

/** Strongly connected components with more than one file (or a file importing itself). */
function cycles(graph: Graph): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of graph.edges) {
    if (!graph.files.includes(edge.to)) continue;
    next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(file, Math.min(low.get(file) as number, low.get(to) as number));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file) as number, index.get(to) as number));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      onStack.delete(top);
      component.push(top);
      if (top === file) break;
    }
    if (component.length > 1 || (next.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of graph.files) if (!index.has(file)) connect(file);
  return found;
}

export interface LayeringEntries {
  /** The entries the Web export conditions resolve to. */
  readonly web: readonly string[];
  readonly generatorApi: string;
}

export function checkLayering(
  graph: Graph,
  entries: LayeringEntries = {
    web: ['runtime/web.ts', 'runtime/generated-web.ts'],
    generatorApi: 'generator/index.ts',
  },
): string[] {
  const problems: string[] = [];
  for (const edge of graph.edges) {
    if (inRuntime(edge.from) && inGenerator(edge.to)) {
      problems.push(`${edge.from} imports ${edge.to}: the runtime never imports the generator`);
    }
    if (
      inGenerator(edge.from) &&
      !edge.from.startsWith('generator/tools/') &&
      inRuntime(edge.to) &&
      !edge.typeOnly
    ) {
      problems.push(
        `${edge.from} imports runtime values from ${edge.to}: only generator/tools/ may (elsewhere \`import type\`)`,
      );
    }
    if (
      inRuntime(edge.from) &&
      !graph.files.includes(edge.to) &&
      !isNode(edge.to) &&
      !edge.to.startsWith('.')
    ) {
      if (edge.to !== 'zod' || !edge.from.startsWith('runtime/manage/')) {
        problems.push(
          `${edge.from} imports the package ${edge.to}: the runtime has no dependencies (zod, an optional peer, in runtime/manage/ only)`,
        );
      }
    }
  }
  for (const component of cycles(graph))
    problems.push(`import cycle (type-only imports count): ${component.join(' ↔ ')}`);
  for (const entry of entries.web) {
    for (const [file, via] of reachable(graph, entry)) {
      for (const edge of graph.edges) {
        if (edge.from === file && isNode(edge.to)) {
          problems.push(`${entry} reaches ${edge.to}: ${[...via].join(' → ')} imports it`);
        }
      }
    }
  }
  for (const [file, via] of reachable(graph, entries.generatorApi)) {
    if (file.startsWith('generator/tools/')) {
      problems.push(`${entries.generatorApi} loads the developer tools: ${via.join(' → ')}`);
    }
  }
  return problems;
}
