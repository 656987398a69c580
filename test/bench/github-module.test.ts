/**
 * The benches' GitHub module still loads as generated today (not a timing: the figures belong to
 * bench:receive): a change to the generated files' form fails here, not at the next measurement.
 */
import { afterAll, expect, it } from 'vitest';
import { example, type GitHubModule, generateGitHub } from '../../bench/lib/github-module.js';

let module: GitHubModule | undefined;
afterAll(() => module?.dispose());

it('generates GitHub, loads its contract and validators, and finds valid examples', async () => {
  module = await generateGitHub();
  expect(Object.keys(module.contract.events)).toContain('issues.opened');
  for (const event of ['issues.opened', 'pull_request.opened', 'push']) {
    expect(example(event, module.eventSchemas).event).toBe(event);
  }
}, 120_000);
