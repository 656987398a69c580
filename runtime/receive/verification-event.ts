/**
 * The sender's `webhook.verification` event (`{ type, timestamp, data: { challenge } }`, signed with
 * the endpoint's secret like a delivery, whatever the contract's envelope; runtime/manage/
 * verify-endpoint.ts sends it): echoed as `{"challenge":"…"}` once the signature verified. Every
 * contract receiver answers it, so it is apart from the declared handshakes (contract-handshakes.ts).
 */
import { jsonResponse } from '../presets/support.js';
import type { HandshakeResponse } from '../presets/types.js';
import { isRecord } from '../presets/web-support.js';

/** A challenge is echoed only if it is short printable text: the answer must not carry anything else. */
export const CHALLENGE = /^[\x20-\x7e]{1,1024}$/;

export function verificationAnswer(body: unknown): HandshakeResponse | undefined {
  if (!isRecord(body) || body['type'] !== 'webhook.verification') return undefined;
  const data = body['data'];
  const challenge = isRecord(data) && Object.hasOwn(data, 'challenge') ? data['challenge'] : undefined;
  if (typeof challenge !== 'string' || !CHALLENGE.test(challenge)) return undefined;
  return jsonResponse(200, { challenge });
}
