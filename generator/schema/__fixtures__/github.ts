/**
 * GitHub's webhook spec (devDependency @octokit/openapi-webhooks) as model-style named schemas: every
 * `#/components/schemas/<k>` ref rewritten to `#/schemas/<k>` (what the loader does), plus one named
 * schema per webhook payload. Test-only; independent of the loader so schema tests stand alone.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { JsonSchema } from '../../model.js';

const require = createRequire(import.meta.url);

interface Spec {
  webhooks: Record<
    string,
    { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }
  >;
  components: { schemas: Record<string, JsonSchema> };
}

function rewrite(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewrite);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] =
      k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', '#/schemas/') : rewrite(v);
  }
  return out;
}

export interface GithubModel {
  /** Named schemas in the model's form. */
  readonly schemas: Record<string, JsonSchema>;
  /** Webhook name (`issues-opened`) → key of its payload schema. */
  readonly events: Record<string, string>;
}

export function loadGithub(): GithubModel {
  const file = require.resolve('@octokit/openapi-webhooks/generated/api.github.com.json');
  const spec = JSON.parse(fs.readFileSync(file, 'utf8')) as Spec;
  const schemas: Record<string, JsonSchema> = {};
  for (const [key, schema] of Object.entries(spec.components.schemas))
    schemas[key] = rewrite(schema) as JsonSchema;
  const events: Record<string, string> = {};
  for (const [name, hook] of Object.entries(spec.webhooks)) {
    const ref = hook.post.requestBody.content['application/json']?.schema.$ref ?? '';
    events[name] = ref.slice(ref.lastIndexOf('/') + 1);
  }
  return { schemas, events };
}

/** The named schemas reachable from `roots` (transitive closure over `#/schemas/` refs). */
export function closure(
  schemas: Record<string, JsonSchema>,
  roots: readonly string[],
): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const queue = [...roots];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (k === '$ref' && typeof v === 'string' && v.startsWith('#/schemas/'))
          queue.push(v.slice('#/schemas/'.length));
        else visit(v);
      }
    }
  };
  while (queue.length > 0) {
    const key = queue.shift() ?? '';
    const schema = schemas[key];
    if (schema === undefined || key in out) continue;
    out[key] = schema;
    visit(schema);
  }
  return out;
}
