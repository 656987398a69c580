/**
 * README.md of an SDK package, from the contract: install, verify-and-parse in one call, a receiver
 * on Express, Fastify, Hono, a Next.js route handler and Cloudflare Workers, and the event catalog
 * (name, summary, payload fields, an example). Every piece of contract text goes through
 * markdown.ts; code is fenced with fences longer than anything inside.
 */
import { describeSchema } from '../../diff/describe-schema.js';
import { asObj, flattenAllOf, isObj, resolve } from '../../diff/schema-view.js';
import type { ContractModel, EventModel, JsonSchema } from '../../model.js';
import { quote } from '../literal.js';
import { TEMPLATED_LICENSES } from './license.js';
import { cell, code, fence, inline, text } from './markdown.js';
import type { ResolvedPackage } from './package-json.js';

export interface ReadmeInput {
  readonly model: ContractModel;
  readonly pkg: ResolvedPackage;
  /** Fixture value per event name (what `<name>/fixtures` exports). */
  readonly fixtures: ReadonlyMap<string, unknown>;
  readonly generatorVersion: string;
  readonly source: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

interface Field {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  readonly description: string | undefined;
}

function descriptionOf(model: ContractModel, schema: JsonSchema): string | undefined {
  for (const candidate of [schema, resolve(model, schema)]) {
    if (isObj(candidate)) {
      const value = candidate.description ?? candidate.title;
      if (typeof value === 'string' && value.trim() !== '') return value;
    }
  }
  return undefined;
}

/** Top-level payload fields: refs followed, allOf merged (the diff engine's view of the schema). */
export function payloadFields(model: ContractModel, event: EventModel): Field[] {
  const view = flattenAllOf(model, asObj(resolve(model, event.payload.schema)));
  const properties = isObj(view.properties) ? view.properties : {};
  const required = new Set(Array.isArray(view.required) ? (view.required as string[]) : []);
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    type: describeSchema(schema as JsonSchema),
    required: required.has(name),
    description: descriptionOf(model, schema as JsonSchema),
  }));
}

function eventSection(input: ReadmeInput, event: EventModel): string {
  const parts: string[] = [`### ${code(event.name)}`];
  if (event.deprecated) parts.push('**Deprecated.**');
  if (event.summary) parts.push(text(event.summary));
  if (event.description && event.description !== event.summary) parts.push(text(event.description));
  const fields = payloadFields(input.model, event);
  if (fields.length > 0) {
    const rows = fields.map(
      (f) =>
        `| ${cell(code(f.name))} | ${cell(code(f.type))} | ${f.required ? 'yes' : 'no'} | ${cell(f.description === undefined ? '' : text(f.description))} |`,
    );
    parts.push(
      ['| Field | Type | Required | Description |', '| --- | --- | --- | --- |', ...rows].join('\n'),
    );
  }
  if (input.fixtures.has(event.name)) {
    parts.push(
      `Example payload (\`data\`):\n\n${fence('json', JSON.stringify(input.fixtures.get(event.name), null, 2))}`,
    );
  }
  return parts.join('\n\n');
}

/** The other direction of a two-way AsyncAPI document: named, never received as events. */
function clientMessagesSection(messages: readonly EventModel[]): string[] {
  return [
    `## Client messages (${messages.length})`,
    `What clients send the application (the other direction): typed as ${code('ClientMessages')} and validated by ${code('clientMessageSchemas')}; the receiver does not accept them as events.`,
    messages
      .map((m) => `- ${code(m.name)}${m.summary === undefined ? '' : ` — ${text(m.summary)}`}`)
      .join('\n'),
  ];
}

/** The first event, and a field of its payload that reads well in `event.data.<field>`. */
function sample(input: ReadmeInput): { event: string; field: string | undefined } {
  const [first] = input.model.events;
  const event = first?.name ?? 'event';
  const field = first
    ? payloadFields(input.model, first).find((f) => f.required && IDENTIFIER.test(f.name))
    : undefined;
  return { event, field: field?.name };
}

function usage(input: ReadmeInput): string {
  const name = input.pkg.name;
  const { event, field } = sample(input);
  const read = field === undefined ? 'event.data' : `event.data.${field}`;
  // A key-pair contract is verified with the sender's public key, any other with the shared secret.
  const [option, variable] =
    input.model.signature.kind === 'asymmetric'
      ? ['publicKey', 'WEBHOOK_PUBLIC_KEY']
      : ['secret', 'WEBHOOK_SECRET'];
  const parse = fence(
    'ts',
    [
      `import { createParser, isWebhookError } from ${quote(name)};`,
      '',
      `const parser = createParser({ ${option}: process.env['${variable}'] ?? '' });`,
      '',
      'export async function onWebhook(request: Request): Promise<Response> {',
      '  try {',
      '    const event = await parser.verifyAndParse(request);',
      `    if (event.type === ${quote(event)}) {`,
      `      console.log(event.id, ${read}); // typed from the contract, validated`,
      '    }',
      '    return new Response(null, { status: 204 });',
      '  } catch (error) {',
      '    // Only WebhookError: 401 bad signature, 400 bad envelope, payload or unknown event type.',
      '    const status = isWebhookError(error) ? error.status : 500;',
      '    return new Response(null, { status });',
      '  }',
      '}',
    ].join('\n'),
  );
  const receiver = fence(
    'ts',
    [
      `import { createReceiver } from ${quote(name)};`,
      `import { sqliteStore } from ${quote(`${name}/runtime`)};`,
      '',
      'export const receiver = createReceiver({',
      `  ${option}: process.env['${variable}'] ?? '',`,
      "  store: sqliteStore('webhooks.db'), // each event id handled once (needs better-sqlite3; or postgresStore / redisStore)",
      '  handlers: {',
      `    ${quote(event)}: async (event) => {`,
      `      console.log(event.id, ${read});`,
      '    },',
      '  },',
      '});',
    ].join('\n'),
  );
  const frameworks = [
    [
      'Express (mount the route before `express.json()`: the signature covers the raw bytes)',
      [
        "import express from 'express';",
        `import { expressHandler } from ${quote(`${name}/runtime`)};`,
        "import { receiver } from './receiver.js';",
        '',
        'const app = express();',
        "app.post('/webhooks', expressHandler(receiver));",
        'app.use(express.json());',
        'app.listen(3000);',
      ],
    ],
    [
      'Fastify (the plugin reads the raw body in its own scope)',
      [
        "import Fastify from 'fastify';",
        `import { fastifyWebhook } from ${quote(`${name}/runtime`)};`,
        "import { receiver } from './receiver.js';",
        '',
        'const app = Fastify();',
        "await app.register(fastifyWebhook(receiver, { path: '/webhooks' }));",
        'await app.listen({ port: 3000 });',
      ],
    ],
    [
      'Hono',
      [
        "import { Hono } from 'hono';",
        "import { receiver } from './receiver.js';",
        '',
        'const app = new Hono();',
        "app.post('/webhooks', (c) => receiver.fetch(c.req.raw));",
        'export default app;',
      ],
    ],
    [
      'Next.js route handler (`app/webhooks/route.ts`)',
      [
        "import { receiver } from '../../receiver.js';",
        '',
        'export const POST = (request: Request) => receiver.fetch(request);',
      ],
    ],
    [
      'Cloudflare Workers (the parser needs no store; answer 2xx once the event is handled)',
      [
        `import { createParser, isWebhookError } from ${quote(name)};`,
        '',
        'export default {',
        `  async fetch(request: Request, env: { ${variable}: string }): Promise<Response> {`,
        '    try {',
        `      const event = await createParser({ ${option}: env.${variable} }).verifyAndParse(request);`,
        `      if (event.type === ${quote(event)}) console.log(${read});`,
        '      return new Response(null, { status: 204 });',
        '    } catch (error) {',
        '      return new Response(null, { status: isWebhookError(error) ? error.status : 500 });',
        '    }',
        '  },',
        '};',
      ],
    ],
  ] as const;
  return [
    '## Verify and parse a delivery',
    `One call checks the signature and replay window, reads the envelope and validates the payload; \`event\` is narrowed on \`type\`.`,
    parse,
    '## Handle deliveries with a receiver',
    'A receiver adds exactly-once handling (an idempotency store), typed handlers per event and the HTTP answers senders expect.',
    receiver,
    ...frameworks.flatMap(([title, lines]) => [`### ${title}`, fence('ts', lines.join('\n'))]),
    ...testingSection(input, event),
  ].join('\n\n');
}

/** Test secrets in the format each scheme takes (Standard Webhooks and Svix: `whsec_` + base64). */
function testSecret(model: ContractModel): string {
  const whsec =
    model.signature.kind === 'standard-webhooks' ||
    (model.signature.kind === 'preset' && model.signature.preset === 'svix');
  return whsec ? 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' : 'test-secret';
}

/** `testDelivery` in a handler's unit test; key-pair contracts get the text only (their key pair is the app's). */
function testingSection(input: ReadmeInput, event: string): string[] {
  const name = input.pkg.name;
  const signature = input.model.signature;
  const keyPair =
    signature.kind === 'asymmetric' ||
    (signature.kind === 'preset' && ['discord', 'sendgrid', 'plaid'].includes(signature.preset));
  const intro = `${code('testDelivery(event, payload?, options)')} builds a delivery signed exactly as the sender signs it (the event's fixture when no payload is given), for unit tests of your handlers: ${code('await receiver.fetch(delivery.request())')}, or its ${code('headers')} and ${code('body')} with supertest or Hono's ${code('app.request')}.`;
  if (keyPair) {
    return [
      '## Test your handlers',
      `${intro} This contract is signed with a key pair: pass a test key pair as ${code('{ privateKey, publicKey }')} and give the receiver under test its public key.`,
    ];
  }
  const secret = quote(testSecret(input.model));
  const options = signature.kind === 'none' ? '{}' : `{ secret: ${secret} }`;
  return [
    '## Test your handlers',
    intro,
    fence(
      'ts',
      [
        `import { createReceiver, testDelivery } from ${quote(name)};`,
        `import { memoryStore } from ${quote(`${name}/runtime`)};`,
        '',
        'export async function handlerTest(): Promise<void> {',
        '  const handled: string[] = [];',
        '  const receiver = createReceiver({',
        ...(signature.kind === 'none' ? [] : [`    secret: ${secret},`]),
        '    store: memoryStore(),',
        `    handlers: { ${quote(event)}: (event) => void handled.push(event.id) },`,
        '  });',
        `  const delivery = await testDelivery(${quote(event)}, ${options});`,
        '  const response = await receiver.fetch(delivery.request());',
        "  if (response.status !== 200 || handled[0] !== delivery.id) throw new Error('not handled');",
        '}',
      ].join('\n'),
    ),
  ];
}

function licenseSection(pkg: ResolvedPackage): string {
  if (TEMPLATED_LICENSES.includes(pkg.license))
    return `## License\n\n${text(pkg.license)}: see [LICENSE](LICENSE).`;
  return `## License\n\n${text(pkg.license)}. No LICENSE file was generated for this license: add its text before publishing.`;
}

export function emitReadme(input: ReadmeInput): string {
  const { model, pkg } = input;
  const intro = [
    `# ${text(pkg.name)}`,
    text(pkg.description),
    `Generated by gen-webhooks ${inline(input.generatorVersion)} from ${code(input.source)} (${inline(model.title)} ${inline(model.version)}). ` +
      `Signature scheme: ${code(model.signature.kind === 'preset' ? model.signature.preset : model.signature.kind)}.`,
  ];
  if (model.description) intro.push(text(model.description));
  const events = model.events.map((event) => eventSection(input, event));
  return `${[
    ...intro,
    '## Install',
    fence('sh', `npm install ${pkg.name} zod`),
    `zod 4 is a peer dependency: the app brings one copy. ${code(`import { fixtures } from '${pkg.name}/fixtures'`)} gives one valid payload per event for your tests.`,
    usage(input),
    `## Events (${model.events.length})`,
    ...events,
    ...(model.received === undefined ? [] : clientMessagesSection(model.received)),
    licenseSection(pkg),
  ].join('\n\n')}\n`;
}
