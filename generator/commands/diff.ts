/**
 * `gen-webhooks diff <old> <new>`: classifies every change between two versions of a contract as
 * breaking for receivers, for senders, or safe (rules: docs/evolution.md). Exit 1 when a change breaks
 * the audience named by `--fail-on` (default any), 0 otherwise, 2 for bad input.
 */

import { type DiffReport, diffContracts, formatDiffText } from '../diff/index.js';
import { GeneratorError } from '../errors.js';
import { loadContract } from '../parse/index.js';
import { booleanFlag, parseToolArgs, stringFlag } from '../tools/args.js';
import { createStyle, processIo, runTool, type ToolIo, writeJson } from '../tools/output.js';
import type { Command } from './types.js';

const FAIL_ON = ['receivers', 'senders', 'any', 'none'] as const;
type FailOn = (typeof FAIL_ON)[number];

const help = `Usage: gen-webhooks diff <old> <new> [--json] [--fail-on receivers|senders|any|none] [--preset github] [--verbose]

Compares two versions of one contract and classifies every change, per event, with its JSON pointer
in the payload schema and the old and new values:
  breaking for receivers  event removed, field removed, field made optional or nullable, type widened,
                          enum value or union member added, constraint relaxed (maxLength raised…)
  breaking for senders    required field added, field made required, type narrowed, enum value
                          removed, constraint added or tightened (pattern, format, minimum,
                          additionalProperties: false…)
  breaking for both       type changed (string → integer), signature/envelope/selector changed
  safe                    optional field added, event added, descriptions, examples, deprecations

Options:
  --json                 print { breaking: { receivers, senders }, safe, summary } as one JSON object
  --fail-on <who>        which breaking changes make the exit code 1: receivers, senders, any
                         (default) or none
  --preset github        apply GitHub's conventions to both documents
  --verbose              list documentation-only changes instead of counting them

Exit codes: 0 no breaking change (for --fail-on), 1 breaking changes, 2 bad input or usage.
Colours are used on a terminal unless NO_COLOR is set. Rules and examples: docs/evolution.md.`;

export const command: Command = {
  summary: 'classify the changes between two versions of a contract (breaking for receivers/senders)',
  help,
  run: (argv) => runDiff(argv, processIo()),
};

export async function runDiff(argv: readonly string[], io: ToolIo): Promise<number> {
  const json = argv.includes('--json');
  return runTool('diff', io, json, async () => {
    const args = parseToolArgs('diff', argv, {
      json: { type: 'boolean' },
      'fail-on': { type: 'string' },
      preset: { type: 'string' },
      verbose: { type: 'boolean' },
    });
    const [oldFile, newFile, ...extra] = args.positionals;
    if (oldFile === undefined || newFile === undefined || extra.length > 0) {
      throw new GeneratorError('invalid_argument', 'diff: give exactly two contract files', {
        expected: 'gen-webhooks diff <old> <new>',
      });
    }
    const failOn = (stringFlag(args, 'fail-on') ?? 'any') as FailOn;
    if (!FAIL_ON.includes(failOn)) {
      throw new GeneratorError('invalid_argument', `diff: unknown --fail-on value "${failOn}"`, {
        expected: FAIL_ON.join(', '),
      });
    }
    const preset = stringFlag(args, 'preset');
    if (preset !== undefined && preset !== 'github') {
      throw new GeneratorError('invalid_argument', `diff: unknown --preset value "${preset}"`, {
        expected: 'github',
      });
    }
    const options = preset === 'github' ? { preset: 'github' as const } : {};
    const oldModel = await loadContract(oldFile, options);
    const newModel = await loadContract(newFile, options);
    const report = diffContracts(oldModel, newModel);
    if (json) writeJson(io, report);
    else {
      io.stdout.write(
        formatDiffText(report, {
          style: createStyle(io.stdout, io.env),
          verbose: booleanFlag(args, 'verbose'),
        }),
      );
    }
    return fails(report, failOn) ? 1 : 0;
  });
}

function fails(report: DiffReport, failOn: FailOn): boolean {
  const { receivers, senders } = report.breaking;
  if (failOn === 'none') return false;
  if (failOn === 'receivers') return receivers.length > 0;
  if (failOn === 'senders') return senders.length > 0;
  return receivers.length > 0 || senders.length > 0;
}
