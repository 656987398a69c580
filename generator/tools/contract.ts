/**
 * The contract side of the tools: load one contract into the model, pick an event by name (listing
 * the valid ones when it is not there), and find the signing secret (`--secret`, else the
 * `GEN_WEBHOOKS_SECRET` environment variable, which keeps secrets out of shell history).
 */
import { GeneratorError } from '../errors.js';
import type { ContractModel, EventModel } from '../model.js';
import { loadContract } from '../parse/index.js';
import { nearest } from './suggest.js';

export const SECRET_ENV = 'GEN_WEBHOOKS_SECRET';

export async function loadModel(file: string): Promise<ContractModel> {
  return loadContract(file);
}

export function findEvent(model: ContractModel, name: string): EventModel {
  const event = model.events.find((e) => e.name === name);
  if (event) return event;
  const names = model.events.map((e) => e.name);
  const near = nearest(name, names);
  throw new GeneratorError(
    'invalid_argument',
    `unknown event ${JSON.stringify(name)} in ${model.title}${near.length > 0 ? ` (did you mean ${near.join(' or ')}?)` : ''}`,
    { file: model.file, expected: `one of ${names.join(', ')}` },
  );
}

/** Name of the scheme and the headers it signs, for messages (`hmac (X-Webhook-Signature)`). */
export function schemeLabel(model: ContractModel): string {
  const s = model.signature;
  if (s.kind === 'hmac') return `hmac-${s.algorithm} (${s.header})`;
  if (s.kind === 'asymmetric') return `${s.algorithm} key pair (${s.header})`;
  if (s.kind === 'preset') return `${s.preset} preset`;
  return s.kind;
}

/** The secret to sign or verify with, or `undefined` when neither the flag nor the variable is set. */
export function secretFrom(
  flag: string | undefined,
  env: { readonly [name: string]: string | undefined },
): string | undefined {
  if (flag !== undefined && flag !== '') return flag;
  const fromEnv = env[SECRET_ENV];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined;
}

export function requireSecret(
  command: string,
  model: ContractModel,
  flag: string | undefined,
  env: { readonly [name: string]: string | undefined },
): string {
  const secret = secretFrom(flag, env);
  if (secret !== undefined) return secret;
  if (model.signature.kind === 'none') return '';
  throw new GeneratorError(
    'invalid_argument',
    `${command}: --secret is required: ${model.title} signs deliveries with ${schemeLabel(model)}`,
    { expected: `--secret <secret> or the ${SECRET_ENV} environment variable` },
  );
}
