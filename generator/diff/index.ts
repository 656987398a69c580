/**
 * Contract evolution: what changed between two versions of a contract and whom it breaks.
 * `diffContracts` is pure (models in, report out); `gen-webhooks diff` loads, prints and sets the exit code.
 * Rules and examples: docs/evolution.md.
 */
import type { ContractModel } from '../model.js';
import { compareContracts } from './compare-contract.js';
import { buildReport } from './report.js';
import type { DiffReport } from './types.js';

export { formatDiffText } from './format-text.js';
export { RULE_BREAKS } from './rules.js';
export type { Audience, DiffChange, DiffLocation, DiffReport, DiffRule, DiffSummary } from './types.js';

export function diffContracts(oldModel: ContractModel, newModel: ContractModel): DiffReport {
  return buildReport(oldModel, newModel, compareContracts(oldModel, newModel));
}
