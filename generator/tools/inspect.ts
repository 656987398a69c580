/**
 * Checks one received request the way a generated receiver would, but reports every check instead of
 * stopping at the first failure: signature and timestamp window (the contract's scheme, Standard
 * Webhooks by default), JSON body, envelope fields, which event the selector picks, and the payload
 * against the contract's schema. `listen` prints the result and saves it with the capture.
 */
import type { EnvelopeConfig, HeadersInput, SelectorConfig, SignatureScheme } from '@gen-webhooks/runtime';
import {
  createSignatureScheme,
  envelopeFields,
  getHeader,
  isWebhookError,
  parseEnvelope,
} from '@gen-webhooks/runtime';
import type { ContractModel } from '../model.js';
import type { CheckResult } from './capture.js';
import { pointerOf, selectEvent } from './select-event.js';
import { createPayloadValidator, formatIssues, type PayloadValidator } from './validate.js';

/** One contract `listen` checks requests against (or the contract-less Standard Webhooks default). */
export interface InspectionTarget {
  /** Absent: no contract, only signature and envelope are checked. */
  readonly model?: ContractModel;
  readonly envelope: EnvelopeConfig;
  readonly selector: SelectorConfig;
  /** Absent when no usable secret was given (the signature check is then skipped, or fails with `secretError`). */
  readonly scheme?: SignatureScheme;
  readonly schemeName: string;
  /** Set when secrets were given but none fits this scheme (e.g. a plain password for Standard Webhooks). */
  readonly secretError?: string;
  readonly validator?: PayloadValidator;
}

export interface Inspection {
  readonly ok: boolean;
  /** Status to answer: 2xx when every check passed, else the status of the first failure. */
  readonly status: number;
  readonly contract?: string;
  readonly event?: string;
  readonly id?: string;
  readonly checks: readonly CheckResult[];
}

export interface TargetOptions {
  /** Secrets to verify with; each target uses those its scheme accepts (several contracts, rotation). */
  readonly secrets?: readonly string[];
  /** Replay window in seconds. Default 300. */
  readonly tolerance?: number;
  readonly now?: () => number;
}

/** A target for `model`, or the Standard Webhooks default when `model` is undefined. */
export function createTarget(model: ContractModel | undefined, options: TargetOptions): InspectionTarget {
  const signature = model?.signature ?? { kind: 'standard-webhooks' as const };
  const schemeName = signature.kind === 'preset' ? signature.preset : signature.kind;
  const common = {
    ...(options.tolerance === undefined ? {} : { tolerance: options.tolerance }),
    ...(options.now === undefined ? {} : { now: options.now }),
  };
  const secrets = options.secrets ?? [];
  let scheme: SignatureScheme | undefined;
  let secretError: string | undefined;
  if (signature.kind === 'none') {
    scheme = createSignatureScheme(signature, { secret: [], ...common });
  } else if (secrets.length > 0) {
    // Verifying a key-pair contract takes the sender's public key: `--secret` carries it here.
    const keyed = (secret: string | string[]) =>
      signature.kind === 'asymmetric' ? { secret: [], publicKey: secret } : { secret };
    // A secret meant for another contract's scheme must not stop this one from using its own.
    const usable: string[] = [];
    for (const secret of secrets) {
      try {
        createSignatureScheme(signature, { ...keyed(secret), ...common });
        usable.push(secret);
      } catch (error) {
        if (!isWebhookError(error)) throw error;
        secretError ??= `no --secret fits ${schemeName}: ${error.message} [${error.code}]`;
      }
    }
    if (usable.length > 0) {
      scheme = createSignatureScheme(signature, { ...keyed(usable), ...common });
      secretError = undefined;
    }
  }
  return {
    ...(model ? { model, validator: createPayloadValidator(model) } : {}),
    envelope: model?.envelope ?? { kind: 'envelope' },
    selector: model?.selector ?? { kind: 'envelope-type' },
    ...(scheme ? { scheme } : {}),
    ...(secretError ? { secretError } : {}),
    schemeName,
  };
}

export interface ReceivedRequest {
  readonly headers: HeadersInput;
  readonly body: Uint8Array;
  /** Full URL of the request (some schemes sign it). */
  readonly url?: string;
}

/** Checks `request` against each target and keeps the best match (all checks passed, else most passed). */
export async function inspectRequest(
  request: ReceivedRequest,
  targets: readonly InspectionTarget[],
  now: () => number = Date.now,
): Promise<Inspection> {
  let best: { inspection: Inspection; score: number } | undefined;
  for (const target of targets) {
    const inspection = await inspectWith(request, target, now);
    if (inspection.ok) return inspection;
    const score = leadingPasses(inspection.checks);
    if (!best || score > best.score) best = { inspection, score };
  }
  if (!best) throw new Error('inspectRequest: no targets');
  return best.inspection;
}

function leadingPasses(checks: readonly CheckResult[]): number {
  let n = 0;
  for (const check of checks) {
    if (!check.ok) break;
    n += check.skipped ? 0.5 : 1;
  }
  return n;
}

async function inspectWith(
  request: ReceivedRequest,
  target: InspectionTarget,
  now: () => number,
): Promise<Inspection> {
  const checks: CheckResult[] = [];
  let status = 200;
  const fail = (check: CheckResult, code: number) => {
    checks.push(check);
    if (status < 300) status = code;
  };
  const contract = target.model?.name;
  let id: string | undefined;

  // 1. Signature and timestamp window.
  if (target.secretError !== undefined) {
    fail({ name: 'signature', ok: false, detail: target.secretError }, 401);
  } else if (!target.scheme) {
    checks.push({
      name: 'signature',
      ok: true,
      skipped: true,
      detail: `not checked (${target.schemeName}): no --secret given`,
    });
  } else if (target.scheme.name === 'none') {
    checks.push({ name: 'signature', ok: true, skipped: true, detail: 'the contract declares no signature' });
  } else {
    try {
      const verified = await target.scheme.verify({
        headers: request.headers,
        body: request.body,
        ...(request.url ? { url: request.url } : {}),
      });
      id = verified.id;
      checks.push({ name: 'signature', ok: true, detail: `${target.schemeName} signature valid` });
      if (verified.timestamp !== undefined) {
        const age = Math.round(now() / 1000 - verified.timestamp);
        checks.push({
          name: 'timestamp',
          ok: true,
          detail: `signed ${age}s ${age >= 0 ? 'ago' : 'in the future'}, inside the window`,
        });
      }
    } catch (error) {
      if (!isWebhookError(error)) throw error;
      const name = error.code.startsWith('timestamp_') ? 'timestamp' : 'signature';
      const at = typeof error.details.header === 'string' ? error.details.header : undefined;
      fail(
        { name, ok: false, detail: `${error.message} [${error.code}]`, ...(at ? { at } : {}) },
        error.status,
      );
    }
  }

  // 2. JSON body.
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(request.body).toString('utf8'));
  } catch (error) {
    fail({ name: 'body', ok: false, detail: `not JSON: ${(error as Error).message}` }, 400);
    return { ok: false, status, ...(contract ? { contract } : {}), ...(id ? { id } : {}), checks };
  }

  // 3. Envelope fields (the runtime's own parser, so listen agrees with generated receivers).
  const { envelope } = target;
  let data: unknown = body;
  let dataPointer = '';
  let type: string | undefined;
  if (envelope.kind === 'envelope') {
    try {
      const parsed = parseEnvelope(envelope, body);
      // An envelope without an id field keeps the one the signature header gave.
      id = parsed.id ?? id;
      type = parsed.type;
      data = parsed.data;
      dataPointer = pointerOf(envelopeFields(envelope).data);
    } catch (error) {
      if (!isWebhookError(error)) throw error;
      const at = typeof error.details.pointer === 'string' ? error.details.pointer : undefined;
      fail(
        {
          name: 'envelope',
          ok: false,
          detail: `${error.message} [${error.code}]`,
          ...(at !== undefined ? { at } : {}),
        },
        400,
      );
      return { ok: false, status, ...(contract ? { contract } : {}), ...(id ? { id } : {}), checks };
    }
    checks.push({ name: 'envelope', ok: true, detail: `${type} ${id}` });
  } else if (id === undefined) {
    id = idFromHeaders(request.headers, target.model);
  }

  // 4. Which event (only with a contract).
  const model = target.model;
  if (!model) {
    checks.push({ name: 'payload', ok: true, skipped: true, detail: 'not validated: no contract given' });
    return {
      ok: status < 300,
      status,
      ...(type !== undefined ? { event: type } : {}),
      ...(id ? { id } : {}),
      checks,
    };
  }
  const selected = selectEvent(model, target.selector, request.headers, body);
  if (!selected.event) {
    fail(
      { name: 'event', ok: false, detail: selected.detail, ...(selected.at ? { at: selected.at } : {}) },
      400,
    );
    return { ok: false, status, contract: model.name, ...(id ? { id } : {}), checks };
  }
  const event = selected.event;
  checks.push({ name: 'event', ok: true, detail: `${event.name} (${model.title})` });

  // 5. Payload against the contract.
  const issues = target.validator?.validate(event.name, data) ?? [];
  if (issues.length > 0) {
    const first = issues[0];
    fail(
      {
        name: 'payload',
        ok: false,
        detail: `does not match ${event.name}: ${formatIssues(issues.map((i) => ({ ...i, pointer: dataPointer + i.pointer })))}`,
        ...(first ? { at: dataPointer + first.pointer } : {}),
      },
      400,
    );
  } else {
    checks.push({ name: 'payload', ok: true, detail: `matches the ${event.name} schema` });
  }
  return { ok: status < 300, status, contract: model.name, event: event.name, ...(id ? { id } : {}), checks };
}

/** The delivery id from the contract's id header, else from the usual ones (used when unsigned/unverified). */
function idFromHeaders(headers: HeadersInput, model: ContractModel | undefined): string | undefined {
  const own = model?.signature.kind === 'hmac' ? model.signature.idHeader : undefined;
  for (const name of [
    ...(own ? [own] : []),
    'webhook-id',
    'svix-id',
    'x-github-delivery',
    'x-shopify-webhook-id',
  ]) {
    const value = getHeader(headers, name);
    if (value) return value;
  }
  return undefined;
}
