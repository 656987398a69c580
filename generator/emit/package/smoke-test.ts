// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the smoke test is JavaScript text with its own template literals
/**
 * test/smoke.test.mjs of an SDK package (`node --test`, against the built dist/): every fixture is
 * wrapped in the contract's envelope, signed with the scheme of the receiver's own parts,
 * and fed to the receiver (handled once, then answered as a duplicate; a tampered body is 401) and to
 * `verifyAndParse` (the same event back). Proves the package as published works end to end.
 */
import type { ContractModel } from '../../model.js';
import { quote } from '../literal.js';
import { receiverParts } from '../receiver-file.js';

export interface SmokeTestInput {
  readonly model: ContractModel;
  /** Events that have a valid fixture (others cannot be delivered). */
  readonly events: readonly string[];
  /** Module specifier of the runtime inside the package's test/ folder. */
  readonly runtimeImport: string;
  readonly header: string;
}

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** Secret and preset options both sides use, per scheme (Discord verifies with an Ed25519 public key). */
function keysCode(model: ContractModel): string[] {
  if (model.signature.kind === 'preset' && model.signature.preset === 'discord') {
    return [
      "const pair = generateKeyPairSync('ed25519');",
      "const seed = pair.privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32).toString('hex');",
      "const publicKey = pair.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');",
      'const keys = { secret: publicKey, preset: { signingKey: seed } };',
      `const signer = ${receiverParts(model).expression}.scheme(contract.signature, { secret: publicKey, signingKey: seed });`,
    ];
  }
  if (model.signature.kind === 'asymmetric') {
    const algorithm = model.signature.algorithm;
    const [family, digest] = algorithm.split('-');
    const curve = { sha256: 'prime256v1', sha384: 'secp384r1', sha512: 'secp521r1' }[digest ?? ''];
    const generate =
      family === 'ed25519'
        ? "generateKeyPairSync('ed25519')"
        : family === 'rsa'
          ? "generateKeyPairSync('rsa', { modulusLength: 2048 })"
          : `generateKeyPairSync('ec', { namedCurve: ${quote(curve ?? 'prime256v1')} })`;
    return [
      `const pair = ${generate};`,
      "const keys = { publicKey: pair.publicKey.export({ format: 'pem', type: 'spki' }) };",
      "const privateKey = pair.privateKey.export({ format: 'pem', type: 'pkcs8' });",
      `const signer = ${receiverParts(model).expression}.scheme(contract.signature, { secret: privateKey });`,
    ];
  }
  return [
    `const keys = { secret: ${quote(SECRET)} };`,
    `const signer = ${receiverParts(model).expression}.scheme(contract.signature, { secret: ${quote(SECRET)} });`,
  ];
}

export function emitSmokeTest(input: SmokeTestInput): string {
  const { model } = input;
  const rows = model.events
    .filter((event) => input.events.includes(event.name))
    .map(
      (event) =>
        `  [${quote(event.name)}, ${quote(event.match?.body ?? event.name)}, ${quote(event.match?.header ?? event.name)}],`,
    );
  const discord = model.signature.kind === 'preset' && model.signature.preset === 'discord';
  const keyPair = discord || model.signature.kind === 'asymmetric';
  const signed = model.signature.kind !== 'none';
  return [
    input.header,
    "import assert from 'node:assert/strict';",
    ...(keyPair ? ["import { generateKeyPairSync } from 'node:crypto';"] : []),
    "import { test } from 'node:test';",
    `import { ${['buildEnvelope', 'memoryStore', ...receiverParts(model).imports].join(', ')} } from ${quote(input.runtimeImport)};`,
    "import { fixtures } from '../dist/fixtures.js';",
    "import { contract, createParser, createReceiver } from '../dist/index.js';",
    '',
    "process.env.NODE_ENV ??= 'test';",
    "const URL = 'https://webhooks.example/smoke';",
    ...keysCode(model),
    '',
    '/** [event, type written in the body, selector header value] for every event with a fixture. */',
    'const EVENTS = [',
    ...rows,
    '];',
    '',
    'let counter = 0;',
    'async function delivery(type, header, data) {',
    '  const id = `msg_smoke_${++counter}_${Date.now()}`;',
    '  const body = JSON.stringify(buildEnvelope(contract.envelope, { type, data, id }));',
    "  const headers = { 'content-type': 'application/json' };",
    "  if (contract.selector.kind === 'header') headers[contract.selector.header.toLowerCase()] = header;",
    '  const signature = await signer.sign({ id, timestamp: Math.floor(Date.now() / 1000), body, url: URL });',
    '  for (const [name, value] of Object.entries(signature)) headers[name.toLowerCase()] = value;',
    '  return { headers, body, url: URL };',
    '}',
    '',
    "test('every fixture is verified, validated and handled once', async () => {",
    '  const seen = [];',
    '  const handlers = Object.fromEntries(EVENTS.map(([event]) => [event, (e) => void seen.push(e)]));',
    '  const receiver = createReceiver({ ...keys, store: memoryStore(), handlers });',
    '  for (const [event, type, header] of EVENTS) {',
    '    const d = await delivery(type, header, fixtures[event]);',
    '    const first = await receiver.handle(d);',
    '    assert.equal(first.status, 200, `${event}: ${first.body}`);',
    "    assert.equal(first.outcome, 'processed', event);",
    '    assert.equal(seen.at(-1)?.type, event);',
    '    assert.deepEqual(seen.at(-1)?.data, fixtures[event]);',
    '    const again = await receiver.handle(d);',
    "    assert.equal(again.outcome, 'duplicate', `${event}: a redelivery is not handled twice`);",
    ...(signed
      ? [
          '    const tampered = await receiver.handle({ ...d, body: `${d.body} ` });',
          '    assert.equal(tampered.status, 401, `${event}: a tampered body is refused`);',
        ]
      : []),
    '  }',
    '  assert.equal(seen.length, EVENTS.length);',
    '});',
    '',
    "test('verifyAndParse returns the same typed event and throws WebhookError on a tampered body', async () => {",
    '  const parser = createParser(keys);',
    '  for (const [event, type, header] of EVENTS) {',
    '    const d = await delivery(type, header, fixtures[event]);',
    '    const parsed = await parser.verifyAndParse(d);',
    '    assert.equal(parsed.type, event);',
    '    assert.deepEqual(parsed.data, fixtures[event]);',
    ...(signed
      ? [
          '    await assert.rejects(parser.verifyAndParse({ ...d, body: `${d.body} ` }), (error) => {',
          "      assert.equal(error.name, 'WebhookError');",
          '      assert.equal(error.status, 401);',
          '      return true;',
          '    });',
        ]
      : []),
    '  }',
    '});',
    '',
  ].join('\n');
}
