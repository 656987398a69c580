import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { loadContract } from './index.js';
import { fixture } from './test-helpers.js';

const require = createRequire(import.meta.url);

describe('GitHub conventions', () => {
  it('recognises a GitHub-shaped document and derives names from the spec', async () => {
    const model = await loadContract(fixture('github/mini-github.yaml'));
    expect(model.signature).toEqual({ kind: 'preset', preset: 'github' });
    expect(model.envelope).toEqual({ kind: 'bare' });
    expect(model.selector).toEqual({ kind: 'header', header: 'X-GitHub-Event', bodyField: 'action' });
    expect(model.events.map((e) => [e.name, e.match])).toEqual([
      ['issues.opened', { header: 'issues', body: 'opened' }],
      // schema const wins over x-github; both oneOf branches agree on the action
      ['pull_request.review_requested', { header: 'pull_request', body: 'review_requested' }],
      ['push', { header: 'push' }],
      // a free-form action (repository_dispatch) gives no body match
      ['repository_dispatch', { header: 'repository_dispatch' }],
      // x-github subcategory `sub-issues` is GitHub's `sub_issues` event
      ['sub_issues.sub_issue_added', { header: 'sub_issues', body: 'sub_issue_added' }],
    ]);
    expect(model.diagnostics.map((d) => d.code)).toContain('github_detected');
  });

  it("applies the preset to a document that is not GitHub's, using the header example", async () => {
    const plain = await loadContract(fixture('github/plain-hooks.yaml'));
    expect(plain.events.map((e) => e.name)).toEqual(['star']);
    expect(plain.selector).toEqual({ kind: 'envelope-type' });
    const preset = await loadContract(fixture('github/plain-hooks.yaml'), { preset: 'github' });
    expect(preset.events.map((e) => [e.name, e.match])).toEqual([
      ['star.created', { header: 'star', body: 'created' }],
    ]);
    expect(preset.signature).toEqual({ kind: 'preset', preset: 'github' });
  });

  it("loads @octokit/openapi-webhooks' api.github.com.json with unique `<event>.<action>` names", async () => {
    const file = require.resolve('@octokit/openapi-webhooks/generated/api.github.com.json');
    const model = await loadContract(file);
    expect(model.name).toBe('api-github-com');
    expect(model.format).toBe('openapi-3.1');
    expect(model.events.length).toBeGreaterThanOrEqual(250);
    const names = model.events.map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z0-9_]+(\.[a-z0-9_]+)?$/);
    const opened = model.events.find((e) => e.name === 'issues.opened');
    expect(opened?.match).toEqual({ header: 'issues', body: 'opened' });
    expect(opened?.payload.schema).toEqual({ $ref: '#/schemas/webhook-issues-opened' });
    expect(model.events.find((e) => e.name === 'ping')?.match).toEqual({ header: 'ping' });
    expect(model.events.find((e) => e.name === 'ping')?.examples.length).toBe(1);
    expect(model.diagnostics.filter((d) => d.level === 'warning')).toEqual([]);

    // Cross-check with the event/action list of @octokit/webhooks-examples (real deliveries).
    const examples = require('@octokit/webhooks-examples/api.github.com/index.json') as {
      name: string;
      actions: string[];
    }[];
    const known = new Set(names);
    const missing = examples
      .flatMap((e) => (e.actions.length > 0 ? e.actions.map((a) => `${e.name}.${a}`) : [e.name]))
      .filter((name) => !known.has(name));
    // Not in the spec as separate webhooks: `merged` is `closed` + merged flag, dispatch actions are
    // user-defined, `performed` was retired.
    expect(missing.sort()).toEqual([
      'pull_request.merged',
      'repository_dispatch.on-demand-test',
      'security_advisory.performed',
    ]);
  });
});
