/**
 * Emits one contract's module in memory: file path (inside `<out>/<contract>/`) → contents. Pure:
 * the same model and options always give the same bytes.
 */
import type { Diagnostic } from '../errors.js';
import type { ContractModel } from '../model.js';
import { emitContractFile } from './contract-file.js';
import { emitFixturesFile } from './fixtures-file.js';
import { headerLine } from './header.js';
import { emitIndexFile } from './index-file.js';
import { allocateNames } from './names.js';
import { emitReceiverFile } from './receiver-file.js';
import { createSchemaContext } from './schema-context.js';
import { emitSchemasFile } from './schemas-file.js';
import { emitSenderFile } from './sender-file.js';
import { emitTypesFile } from './types-file.js';

export interface EmitOptions {
  /** Generator version written in each header. */
  readonly version: string;
  /** Input path written in each header (relative, `/`-separated). */
  readonly source: string;
  /** Module the generated code imports the runtime from. */
  readonly runtimeImport: string;
}

export interface EmittedContract {
  /** In a fixed order: types, schemas, contract, sender, receiver, fixtures, index. */
  readonly files: ReadonlyMap<string, string>;
  readonly diagnostics: readonly Diagnostic[];
}

export function emitContract(model: ContractModel, options: EmitOptions): EmittedContract {
  const header = headerLine(options.version, options.source);
  const names = allocateNames(model);
  const diagnostics: Diagnostic[] = [];
  const ctx = createSchemaContext(model, names, diagnostics);
  const files = new Map<string, string>();
  files.set('types.ts', emitTypesFile(model, names, ctx, header));
  files.set('schemas.ts', emitSchemasFile(model, names, ctx, header));
  files.set('contract.ts', emitContractFile(model, names, header, options.runtimeImport));
  files.set('sender.ts', emitSenderFile(model, header, options.runtimeImport));
  files.set('receiver.ts', emitReceiverFile(model, header, options.runtimeImport));
  files.set('fixtures.ts', emitFixturesFile(model, header, diagnostics));
  files.set('index.ts', emitIndexFile(header));
  return { files, diagnostics };
}
