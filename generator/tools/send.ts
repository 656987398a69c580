/**
 * `gen-webhooks send <contract> <event> --url … --secret …`: one valid, signed delivery of an event,
 * built exactly as the contract says (envelope, selector, signature), validated, sent; prints the
 * status, the time taken and the (shortened) response. Exit 0 on 2xx, 1 on any other status, 2 on
 * bad input (unknown event, missing secret, payload not matching the contract, unreachable URL).
 */
import {
  listFlag,
  parseDuration,
  parseHeaderFlag,
  parseToolArgs,
  parseUrl,
  requiredFlag,
  stringFlag,
} from './args.js';
import { findEvent, loadModel, requireSecret, schemeLabel } from './contract.js';
import { createScheme, planDelivery, signDelivery } from './delivery.js';
import { sendHttp } from './http-client.js';
import { createStyle, formatMs, runTool, type ToolIo, truncate, writeJson } from './output.js';
import { choosePayload } from './payload.js';
import { printable } from './printable.js';
import { usageError } from './usage.js';
import { createPayloadValidator } from './validate.js';

const NAME = 'send';

export const SEND_OPTIONS = {
  url: { type: 'string' },
  secret: { type: 'string' },
  data: { type: 'string' },
  header: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  id: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const SEND_HELP = `Usage: gen-webhooks send <contract> <event> --url <url> --secret <secret> [options]

Builds one valid, signed delivery of <event> the way the contract's senders do (its signature
scheme, envelope and selector), validates the payload against the contract, sends it, and prints
the status, the time taken and the response.

Payload: --data file.json, else the contract's first valid example, else one synthesised from the
event's schema.

Options:
  --url <url>           Where to send (required), e.g. http://127.0.0.1:3000/webhooks
  --secret <secret>     Signing secret (or set GEN_WEBHOOKS_SECRET); whsec_… for Standard Webhooks
  --data <file.json>    The payload (the envelope's data) to send
  --header <k:v>        Extra request header; repeatable
  --id <id>             Delivery id (default: a new msg_… id)
  --timeout <duration>  Time limit for the response (default 5s)
  --json                Print one JSON object instead of text
  -h, --help            Show this help

Exit codes: 0 the receiver answered 2xx, 1 it answered anything else,
            2 bad arguments, a payload that does not match the contract, or an unreachable URL.`;

const RESPONSE_PREVIEW = 500;

export function sendCommand(argv: readonly string[], io: ToolIo): Promise<number> {
  const json = argv.includes('--json');
  return runTool(NAME, io, json, async () => {
    const args = parseToolArgs(NAME, argv, SEND_OPTIONS);
    const [contractFile, eventName, extra] = args.positionals;
    if (contractFile === undefined || eventName === undefined || extra !== undefined) {
      throw usageError(
        NAME,
        extra === undefined ? 'expected <contract> <event>' : `unexpected argument ${JSON.stringify(extra)}`,
      );
    }
    const url = parseUrl(NAME, 'url', requiredFlag(NAME, args, 'url', 'where to send the delivery'));
    const timeoutMs = parseDuration(NAME, 'timeout', stringFlag(args, 'timeout') ?? '5s');
    const extraHeaders = listFlag(args, 'header').map((h) => parseHeaderFlag(NAME, h));
    const model = await loadModel(contractFile);
    const event = findEvent(model, eventName);
    const secret = requireSecret(NAME, model, stringFlag(args, 'secret'), io.env);
    const validator = createPayloadValidator(model);
    const payload = choosePayload(NAME, model, event, validator, stringFlag(args, 'data'));
    const now = io.now ?? Date.now;
    const id = stringFlag(args, 'id');
    const delivery = planDelivery(NAME, {
      model,
      event,
      payload: payload.value,
      extraHeaders,
      now,
      ...(id ? { id } : {}),
    });
    const scheme = createScheme(NAME, model, secret);
    const headers = await signDelivery(NAME, scheme, delivery, Math.floor(now() / 1000), url.href);
    const response = await sendHttp(NAME, { url: url.href, headers, body: delivery.body, timeoutMs });
    const ok = response.status >= 200 && response.status < 300;
    const text = response.body.toString('utf8');

    if (json) {
      writeJson(io, {
        ok,
        contract: model.name,
        event: event.name,
        id: delivery.id,
        url: url.href,
        payloadSource: payload.source,
        request: { headers, body: Buffer.from(delivery.body).toString('utf8') },
        status: response.status,
        durationMs: Math.round(response.durationMs * 10) / 10,
        response: { headers: response.headers, body: truncate(text, 10_000) },
      });
      return ok ? 0 : 1;
    }
    const style = createStyle(io.stdout, io.env);
    const statusText = `${response.status} ${response.statusText}`.trim();
    io.stdout.write(
      `${style.bold('→')} POST ${url.href} ${style.bold(event.name)} ${delivery.id}\n` +
        style.dim(
          `  payload: ${payload.source}; signed with ${schemeLabel(model)}; ${delivery.body.byteLength} bytes\n`,
        ) +
        `${style.bold('←')} ${ok ? style.green(statusText) : style.red(statusText)} in ${formatMs(response.durationMs)}\n` +
        // The receiver's answer is outside text.
        (text.length > 0 ? `  ${printable(truncate(text, RESPONSE_PREVIEW)).replace(/\n/g, '\n  ')}\n` : ''),
    );
    return ok ? 0 : 1;
  });
}
