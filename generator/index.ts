/**
 * `gen-webhooks`: the generator API. `generate()` is what the CLI runs; `loadContracts()` gives the
 * neutral event model for tools that want it (diff, listen, send).
 */
export { defineConfig, type GenerateConfig, type PackageConfig, type RuntimeMode } from './config.js';
export {
  type Audience,
  type DiffChange,
  type DiffLocation,
  type DiffReport,
  type DiffRule,
  type DiffSummary,
  diffContracts,
  formatDiffText,
} from './diff/index.js';
export type { ZodFlavor } from './emit/index.js';
export type { PackageInfo } from './emit/package/index.js';
export * from './errors.js';
export {
  type GeneratedContract,
  type GenerateOptions,
  type GenerateResult,
  generate,
} from './generate.js';
export type * from './model.js';
export { type LoadOptions, type LoadResult, loadContract, loadContracts } from './parse/index.js';
export type { FileChange, FolderDiff } from './write.js';
