import { describe, expect, it } from 'vitest';
import { fixture } from '../../test/fixtures/specs/helpers.js';
import { loadContract } from './index.js';

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
    expect(plain.selector).toEqual({ kind: 'schema' });
    const preset = await loadContract(fixture('github/plain-hooks.yaml'), { preset: 'github' });
    expect(preset.events.map((e) => [e.name, e.match])).toEqual([
      ['star.created', { header: 'star', body: 'created' }],
    ]);
    expect(preset.signature).toEqual({ kind: 'preset', preset: 'github' });
  });
});
