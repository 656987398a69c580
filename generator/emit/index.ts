/**
 * Emits one contract's module in memory: file path (inside `<out>/<contract>/`) → contents. Pure:
 * the same model and options always give the same bytes.
 */
import type { Diagnostic } from '../errors.js';
import type { ContractModel } from '../model.js';
import type { ModuleForm } from '../module-form.js';
import { CheckModule } from '../schema/check.js';
import { ZOD_HELPERS, zodHelperJs, zodHelperSource } from '../schema/own-keys.js';
import { emitContractFile } from './contract-file.js';
import { emitFixturesFile } from './fixtures-file.js';
import { headerLine, NOCHECK_LINE } from './header.js';
import { hoistSharedSchemas } from './hoist.js';
import { emitIndexFile } from './index-file.js';
import { toJsForm } from './js-form.js';
import { allocateNames } from './names.js';
import { emitReceiverFile } from './receiver-file.js';
import { createSchemaContext } from './schema-context.js';
import { emitSchemasFile, type ZodFlavor } from './schemas-file.js';
import { emitSenderFile } from './sender-file.js';
import { emitTypesFile } from './types-file.js';
import { emitValidatorFiles } from './validators-file.js';

export interface EmitOptions {
  /** Generator version written in each header. */
  readonly version: string;
  /** Input path written in each header (relative, `/`-separated). */
  readonly source: string;
  /** Module the generated code imports the runtime from. */
  readonly runtimeImport: string;
  /**
   * Let the user's tsc check types.ts, schemas.ts, contract.ts and fixtures.ts too (default false).
   * These are declarations and data, every export annotated, whose correctness is the generator's
   * job: its tests compile every output with them checked. In a user's project they are treated
   * like a library's .d.ts under skipLibCheck — used for checking the user's code, not re-checked
   * themselves — because checking them is most of tsc's time (zod inference against the interfaces
   * takes minutes and >1 GB for GitHub's 400+ schemas; the 261-entry contract literal was 40 % of a
   * receiver consumer's check). sender.ts and receiver.ts stay checked: their calls into the runtime,
   * with the contract and the options types, are where a generated module and an installed runtime
   * version must agree.
   */
  readonly checkAll?: boolean;
  /** Schemas in classic zod (default) or zod/mini (`--zod mini`: smaller bundles, same validation). */
  readonly zod?: ZodFlavor;
  /**
   * `js` (default): schemas, validators and contract as `.js` beside a `.d.ts`, so a consumer's tsc
   * reads declarations instead of parsing their code; `ts`: `.ts` files, for projects that build
   * with tsc, which copies no `.js` source (see module-form.ts). `checkAll` implies `ts`.
   */
  readonly dataModules?: ModuleForm;
}

export type { ZodFlavor } from './schemas-file.js';

/**
 * What generated modules import under `--runtime package`: the runtime's entry for generated code,
 * which exports only what they use, so a consumer's tsc loads a few dozen runtime declarations
 * instead of the root entry's every store, outbox, adapter and management module.
 */
export const RUNTIME_PACKAGE_IMPORT = '@gen-webhooks/runtime/generated';

export { NOCHECK_LINE } from './header.js';

export interface EmittedContract {
  /** In a fixed order: types, schemas, contract, sender, receiver, fixtures, index. */
  readonly files: ReadonlyMap<string, string>;
  readonly diagnostics: readonly Diagnostic[];
}

export function emitContract(input: ContractModel, options: EmitOptions): EmittedContract {
  const model = hoistSharedSchemas(input);
  const header = headerLine(options.version, options.source);
  const heavyHeader = options.checkAll === true ? header : header + NOCHECK_LINE;
  const names = allocateNames(model);
  const diagnostics: Diagnostic[] = [];
  const ctx = createSchemaContext(model, names, diagnostics);
  const files = new Map<string, string>();
  // The checked form is TypeScript: it is what the generator's own tests compile with checks on.
  const form = options.checkAll === true ? 'ts' : (options.dataModules ?? 'js');
  /** A data module as `name.ts`, or as `name.js` + `name.d.ts` in the JavaScript form. */
  const setModule = (name: string, ts: string, helpers?: ReadonlyMap<string, string>) => {
    if (form === 'ts') {
      files.set(`${name}.ts`, ts);
      return;
    }
    const { js, dts } = toJsForm(ts, helpers);
    files.set(`${name}.js`, js);
    files.set(`${name}.d.ts`, dts);
  };
  files.set('types.ts', emitTypesFile(model, names, ctx, heavyHeader));
  const checks = new CheckModule({ schemaName: (k) => ctx.schemaName(k) });
  setModule(
    'schemas',
    emitSchemasFile(model, names, ctx, heavyHeader, options.runtimeImport, options.zod, checks),
    new Map(ZOD_HELPERS.filter((h) => ctx.helpers.has(h)).map((h) => [zodHelperSource(h), zodHelperJs(h)])),
  );
  setModule(
    'validators',
    emitValidatorFiles(names, checks, header, options.runtimeImport, options.zod ?? 'classic'),
  );
  setModule('contract', emitContractFile(model, names, heavyHeader, options.runtimeImport));
  files.set('sender.ts', emitSenderFile(model, header, options.runtimeImport));
  files.set('receiver.ts', emitReceiverFile(model, header, options.runtimeImport));
  files.set('fixtures.ts', emitFixturesFile(model, heavyHeader, diagnostics));
  files.set('index.ts', emitIndexFile(model, header, options.runtimeImport));
  return { files, diagnostics };
}
