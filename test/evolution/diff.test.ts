/**
 * `diffContracts` rule by rule: each fixture under fixtures/ is base.yaml with ONE change, and the
 * diff must report exactly that change with its rule, audience and pointer. Then two real consecutive
 * versions of GitHub's webhooks description (11.0.0 → 12.1.0), with findings checked by hand against
 * the JSON, and the CLI end to end.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type DiffChange,
  type DiffReport,
  diffContracts,
  formatDiffText,
} from '../../generator/diff/index.js';
import { loadContract } from '../../generator/parse/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const fixture = (name: string) => path.join(here, 'fixtures', `${name}.yaml`);

function changesOf(report: DiffReport): DiffChange[] {
  return [...new Set([...report.breaking.receivers, ...report.breaking.senders, ...report.safe])];
}

type Expected = Pick<DiffChange, 'rule' | 'breaks' | 'location' | 'pointer'> &
  Partial<Pick<DiffChange, 'event' | 'keyword' | 'old' | 'new'>>;

const R = ['receivers'] as const;
const S = ['senders'] as const;
const BOTH = ['receivers', 'senders'] as const;
const EV = 'pet.adopted';
const PET = '/properties/pet/properties';

/** Fixture → the one change it must produce (docs-only and event-added: the only changes, all safe). */
const CASES: Record<string, Expected> = {
  // breaking for receivers
  'event-removed': {
    rule: 'event-removed',
    breaks: R,
    location: 'event',
    pointer: '',
    event: 'pet.returned',
  },
  'field-removed': {
    rule: 'field-removed',
    breaks: R,
    location: 'payload',
    pointer: `${PET}/name`,
    event: EV,
    old: 'string',
  },
  'field-made-optional': {
    rule: 'field-made-optional',
    breaks: R,
    location: 'payload',
    pointer: `${PET}/status`,
    event: EV,
  },
  'nullable-added': {
    rule: 'nullable-added',
    breaks: R,
    location: 'payload',
    pointer: '/properties/note',
    event: EV,
  },
  // `anyOf: [X, {type: null}]` with X unchanged is only "now nullable"
  'nullable-added-anyof': {
    rule: 'nullable-added',
    breaks: R,
    location: 'payload',
    pointer: `${PET}/name`,
    event: EV,
  },
  'type-widened': {
    rule: 'type-widened',
    breaks: R,
    location: 'payload',
    pointer: `${PET}/id`,
    event: EV,
    old: 'integer',
    new: 'integer | string',
  },
  'union-member-added': {
    rule: 'union-member-added',
    breaks: R,
    location: 'payload',
    pointer: '/properties/adopter/oneOf/2',
    event: EV,
    new: 'string',
  },
  'enum-value-added': {
    rule: 'enum-value-added',
    breaks: R,
    location: 'payload',
    pointer: `${PET}/status`,
    event: EV,
    keyword: 'enum',
    new: 'pending',
  },
  'constraint-relaxed': {
    rule: 'constraint-relaxed',
    breaks: R,
    location: 'payload',
    pointer: `${PET}/name`,
    event: EV,
    keyword: 'maxLength',
    old: 64,
    new: 128,
  },
  // breaking for senders
  'required-field-added': {
    rule: 'required-field-added',
    breaks: S,
    location: 'payload',
    pointer: '/properties/shelterId',
    event: EV,
  },
  'field-made-required': {
    rule: 'field-made-required',
    breaks: S,
    location: 'payload',
    pointer: '/properties/note',
    event: EV,
  },
  'type-narrowed': {
    rule: 'type-narrowed',
    breaks: S,
    location: 'payload',
    pointer: `${PET}/weight`,
    event: EV,
    old: 'number',
    new: 'integer',
  },
  'enum-value-removed': {
    rule: 'enum-value-removed',
    breaks: S,
    location: 'payload',
    pointer: `${PET}/status`,
    event: EV,
    old: 'reserved',
  },
  'pattern-added': {
    rule: 'constraint-tightened',
    breaks: S,
    location: 'payload',
    pointer: '/properties/note',
    event: EV,
    keyword: 'pattern',
  },
  'max-length-lowered': {
    rule: 'constraint-tightened',
    breaks: S,
    location: 'payload',
    pointer: `${PET}/name`,
    event: EV,
    keyword: 'maxLength',
    old: 64,
    new: 32,
  },
  'minimum-raised': {
    rule: 'constraint-tightened',
    breaks: S,
    location: 'payload',
    pointer: `${PET}/age`,
    event: EV,
    keyword: 'minimum',
    old: 0,
    new: 1,
  },
  'additional-properties-closed': {
    rule: 'additional-properties-closed',
    breaks: S,
    location: 'payload',
    pointer: '/properties/pet',
    event: EV,
  },
  'format-added': {
    rule: 'constraint-tightened',
    breaks: S,
    location: 'payload',
    pointer: '/properties/adoptedAt',
    event: EV,
    keyword: 'format',
    new: 'date-time',
  },
  'header-made-required': {
    rule: 'field-made-required',
    breaks: S,
    location: 'headers',
    pointer: '/properties/X-Pet-Trace',
    event: EV,
  },
  // a change inside a recursive schema (Pet.friends: Pet[]) is found once, and the walk ends
  'recursive-change': {
    rule: 'constraint-tightened',
    breaks: S,
    location: 'payload',
    pointer: `${PET}/friends`,
    event: EV,
    keyword: 'maxItems',
  },
  // breaking for both
  'type-changed': {
    rule: 'type-changed',
    breaks: BOTH,
    location: 'payload',
    pointer: `${PET}/id`,
    event: EV,
    old: 'integer',
    new: 'string',
  },
  'signature-header-changed': {
    rule: 'signature-changed',
    breaks: BOTH,
    location: 'contract',
    pointer: '/signature/header',
    old: 'X-Pet-Signature',
    new: 'X-Pet-Signature-256',
  },
  'envelope-changed': {
    rule: 'envelope-changed',
    breaks: BOTH,
    location: 'contract',
    pointer: '/envelope/fields',
  },
  'selector-changed': { rule: 'selector-changed', breaks: BOTH, location: 'contract', pointer: '/selector' },
  'event-match-changed': {
    rule: 'event-match-changed',
    breaks: BOTH,
    location: 'event',
    pointer: '/match/body',
    event: 'pet.returned',
    new: 'pet.returned.v2',
  },
  // safe
  'optional-field-added': {
    rule: 'field-added',
    breaks: [],
    location: 'payload',
    pointer: `${PET}/color`,
    event: EV,
    new: 'string',
  },
  'retry-changed': { rule: 'retry-changed', breaks: [], location: 'contract', pointer: '/retry' },
  'event-added': { rule: 'event-added', breaks: [], location: 'event', pointer: '', event: 'pet.vaccinated' },
};

describe('diffContracts: one fixture per rule', async () => {
  const base = await loadContract(fixture('base'));

  it('a contract against itself has no changes', () => {
    const report = diffContracts(base, base);
    expect(changesOf(report)).toEqual([]);
    expect(report.summary).toMatchObject({ receivers: 0, senders: 0, safe: 0, breaking: 0 });
  });

  for (const [name, expected] of Object.entries(CASES)) {
    it(`${name}: ${expected.rule} breaks ${expected.breaks.length ? expected.breaks.join('+') : 'nobody'}`, async () => {
      const report = diffContracts(base, await loadContract(fixture(name)));
      expect(changesOf(report)).toEqual([expect.objectContaining(expected)]);
      const { receivers, senders } = report.breaking;
      expect(receivers.length > 0).toBe(expected.breaks.includes('receivers'));
      expect(senders.length > 0).toBe(expected.breaks.includes('senders'));
      expect(report.safe.length).toBe(expected.breaks.length === 0 ? 1 : 0);
    });
  }

  it('docs-only: descriptions, examples, summaries, deprecations and version are safe (info)', async () => {
    const report = diffContracts(base, await loadContract(fixture('docs-only')));
    expect(report.breaking).toEqual({ receivers: [], senders: [] });
    const seen = report.safe.map((c) => [c.rule, c.event ?? '', c.pointer, c.keyword ?? '']);
    expect(seen).toEqual([
      ['metadata-changed', '', '/version', 'version'],
      ['docs-changed', EV, '', 'summary'],
      ['docs-changed', EV, '/properties/note', 'description'],
      ['docs-changed', EV, '/properties/note', 'examples'],
      ['event-deprecated', 'pet.returned', '', ''],
    ]);
  });

  it('reverse direction swaps the audience (removing what was added)', async () => {
    const added = await loadContract(fixture('required-field-added'));
    const report = diffContracts(added, base);
    expect(changesOf(report)).toEqual([
      expect.objectContaining({ rule: 'field-removed', breaks: R, pointer: '/properties/shelterId' }),
    ]);
    const widened = await loadContract(fixture('type-widened'));
    expect(changesOf(diffContracts(widened, base))).toEqual([
      expect.objectContaining({ rule: 'type-narrowed', breaks: S, pointer: `${PET}/id` }),
    ]);
  });

  it('a closed object widens the audience: removal breaks both, an optional addition breaks receivers', async () => {
    const closed = await loadContract(fixture('additional-properties-closed'));
    expect(changesOf(diffContracts(closed, await loadContract(fixture('closed-field-removed'))))).toEqual([
      expect.objectContaining({ rule: 'field-removed', breaks: BOTH, pointer: `${PET}/name` }),
    ]);
    expect(changesOf(diffContracts(closed, await loadContract(fixture('closed-field-added'))))).toEqual([
      expect.objectContaining({ rule: 'field-added', breaks: R, pointer: `${PET}/color` }),
    ]);
  });

  it('the text report groups per event, counts, and has no colour when not asked', async () => {
    const text = formatDiffText(diffContracts(base, await loadContract(fixture('type-changed'))));
    expect(text).toContain(`\n${EV}\n`);
    expect(text).toMatch(/✖ both +type-changed +\/properties\/pet\/properties\/id/);
    expect(text).toContain('1 breaking for receivers, 1 breaking for senders, 0 safe');
    expect(text).not.toContain('\u001b[');
  });
});

describe("GitHub's webhooks description, 11.0.0 → 12.1.0", async () => {
  const require = createRequire(import.meta.url);
  const oldFile = require.resolve('@octokit/openapi-webhooks-11/generated/api.github.com.json');
  const newFile = require.resolve('@octokit/openapi-webhooks/generated/api.github.com.json');
  const [oldModel, newModel] = await Promise.all([loadContract(oldFile), loadContract(newFile)]);
  const report = diffContracts(oldModel, newModel);
  const all = changesOf(report);
  const find = (event: string, rule: DiffChange['rule'], pointer: string) =>
    all.find((c) => c.event === event && c.rule === rule && c.pointer === pointer);

  it('is deterministic', () => {
    expect(JSON.stringify(diffContracts(oldModel, newModel))).toBe(JSON.stringify(report));
    expect(changesOf(diffContracts(oldModel, newModel)).length).toBe(all.length);
  });

  it('finds the 6 new events and removes none', () => {
    expect(all.filter((c) => c.rule === 'event-added').map((c) => c.event)).toEqual([
      'issue_dependencies.blocked_by_added',
      'issue_dependencies.blocked_by_removed',
      'issue_dependencies.blocking_added',
      'issue_dependencies.blocking_removed',
      'secret_scanning_alert.assigned',
      'secret_scanning_alert.unassigned',
    ]);
    expect(report.summary).toMatchObject({ eventsAdded: 6, eventsRemoved: 0 });
    expect(report.summary.old.events).toBe(255);
    expect(report.summary.new.events).toBe(261);
  });

  // Each checked by hand in the two JSON files (components.schemas named in the comment).
  it('spot checks', () => {
    // integration: client_secret, pem, webhook_secret dropped from the GitHub App object
    expect(
      find('check_run.created', 'field-removed', '/properties/check_run/properties/app/properties/pem'),
    ).toMatchObject({
      breaks: R,
    });
    // issue.state_reason: enum gains "duplicate"
    expect(
      find(
        'sub_issues.parent_issue_added',
        'enum-value-added',
        '/properties/parent_issue/properties/state_reason',
      ),
    ).toMatchObject({ breaks: R, new: 'duplicate' });
    // repository-ruleset-bypass-actor.bypass_mode: enum gains "exempt"
    expect(
      find(
        'repository_ruleset.created',
        'enum-value-added',
        '/properties/repository_ruleset/properties/bypass_actors/items/properties/bypass_mode',
      ),
    ).toMatchObject({ breaks: R, new: 'exempt' });
    // custom-property.allowed_values: maxItems 200 and items.maxLength 75 dropped
    expect(
      find(
        'custom_property.created',
        'constraint-relaxed',
        '/properties/definition/properties/allowed_values',
      ),
    ).toMatchObject({ keyword: 'maxItems', old: 200, new: undefined });
    // webhook-code-scanning-alert-reopened.alert: type [object, null] → object
    expect(find('code_scanning_alert.reopened', 'nullable-removed', '/properties/alert')).toMatchObject({
      breaks: S,
    });
    // check-run-with-simple-check-suite.app: anyOf [null, $ref integration] → $ref integration, where
    // integration itself is [object, null]: the same values, so no nullability or type change there.
    const app = all.filter(
      (c) => c.event === 'check_run.created' && c.pointer === '/properties/check_run/properties/app',
    );
    expect(app.filter((c) => c.rule !== 'docs-changed')).toEqual([]);
  });

  it('summary counts match the lists', () => {
    const { summary, breaking, safe } = report;
    expect(summary.receivers).toBe(breaking.receivers.length);
    expect(summary.senders).toBe(breaking.senders.length);
    expect(summary.safe).toBe(safe.length);
    expect(summary.receivers).toBeGreaterThan(0);
    expect(summary.senders).toBeGreaterThan(0);
  });
});

describe('gen-webhooks diff (CLI, end to end)', () => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'generator/cli.ts', 'diff', ...args], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });

  it('exit 0 without breaking changes, 1 with, 2 on bad input', () => {
    const same = cli(fixture('base'), fixture('docs-only'));
    expect(same.status).toBe(0);
    expect(same.stdout).toContain('0 breaking for receivers, 0 breaking for senders, 5 safe');

    const breaking = cli(fixture('base'), fixture('field-removed'), '--json');
    expect(breaking.status).toBe(1);
    const json = JSON.parse(breaking.stdout) as DiffReport;
    expect(Object.keys(json)).toEqual(['breaking', 'safe', 'summary']);
    expect(json.breaking.receivers[0]).toMatchObject({ rule: 'field-removed', pointer: `${PET}/name` });
    expect(json.breaking.senders).toEqual([]);

    // --fail-on senders: a receivers-only break passes
    expect(cli(fixture('base'), fixture('field-removed'), '--fail-on', 'senders').status).toBe(0);

    const missing = cli(fixture('base'), path.join(here, 'fixtures', 'nope.yaml'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^gen-webhooks diff: .*\[file_not_found\]\n$/);
    const usage = cli(fixture('base'), fixture('base'), '--fail-on', 'everyone');
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('[invalid_argument]');
  }, 60_000);
});
