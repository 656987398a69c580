/**
 * URL and network safety of the sender: HTTPS-only, the SSRF guard (every resolved address checked),
 * the connection pinned to the checked address (no second DNS lookup to rebind), timeouts, response
 * caps and connection resets.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendAttempt } from '../../runtime/deliver/http-attempt.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import {
  checkUrl,
  compileUrlPolicy,
  type LookupFunction,
  resolveTarget,
} from '../../runtime/deliver/url-policy.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { isWebhookError } from '../../runtime/errors.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { LOCAL, petContract, readBody, startServer, type TestServer, tempDir } from './helpers.js';

const codeOf = async (p: Promise<unknown> | (() => unknown)) => {
  try {
    await (typeof p === 'function' ? p() : p);
    return 'ok';
  } catch (error) {
    return isWebhookError(error) ? error.code : `unexpected: ${String(error)}`;
  }
};

describe('URL rules', () => {
  const strict = compileUrlPolicy();
  it.each([
    ['http://example.com/hook', 'insecure_url'],
    ['ftp://example.com/hook', 'invalid_url'],
    ['not a url', 'invalid_url'],
    ['https://user:pw@example.com/hook', 'invalid_url'],
    ['https://127.0.0.1/hook', 'blocked_address'],
    ['https://[::1]/hook', 'blocked_address'],
    ['https://[::ffff:127.0.0.1]/hook', 'blocked_address'],
    ['https://[::ffff:a9fe:a9fe]/latest/meta-data', 'blocked_address'],
    ['https://0x7f.1/hook', 'blocked_address'],
    ['https://2130706433/hook', 'blocked_address'],
    ['https://169.254.169.254/latest/meta-data', 'blocked_address'],
    ['https://[fd00:ec2::254]/', 'blocked_address'],
    ['https://10.1.2.3/', 'blocked_address'],
    ['https://100.64.1.1/', 'blocked_address'],
    ['https://[fe80::1]/', 'blocked_address'],
    ['https://224.0.0.1/', 'blocked_address'],
    ['https://0.0.0.0/', 'blocked_address'],
    ['https://8.8.8.8/hook', 'ok'],
    ['https://example.com/hook', 'ok'],
  ])('%s → %s', async (url, expected) => {
    expect(await codeOf(() => checkUrl(url, strict))).toBe(expected);
  });

  it('allows http only for listed hosts and internal addresses only when allow-listed', async () => {
    const dev = compileUrlPolicy({
      allowHttpHosts: ['localhost', '127.0.0.1'],
      allowAddresses: ['127.0.0.1', '10.0.0.0/8'],
    });
    expect(await codeOf(() => checkUrl('http://127.0.0.1:3000/h', dev))).toBe('ok');
    expect(await codeOf(() => checkUrl('http://localhost:3000/h', dev))).toBe('ok');
    expect(await codeOf(() => checkUrl('http://example.com/h', dev))).toBe('insecure_url');
    expect(await codeOf(() => checkUrl('https://10.9.8.7/h', dev))).toBe('ok');
    expect(await codeOf(() => checkUrl('https://127.0.0.2/h', dev))).toBe('blocked_address');
    expect(() => compileUrlPolicy({ allowAddresses: ['nonsense'] })).toThrow(/allowAddresses/);
  });

  it('checks every resolved address of a host name', async () => {
    const table: Record<string, string[]> = {
      'rebind.example': ['127.0.0.1'],
      'mixed.example': ['93.184.216.34', '10.0.0.7'],
      'metadata.example': ['169.254.169.254'],
      'v6.example': ['::ffff:192.168.0.1'],
      'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
      'empty.example': [],
    };
    const lookup: LookupFunction = async (host) => {
      const found = table[host];
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    const policy = compileUrlPolicy({ lookup });
    expect(await codeOf(resolveTarget('https://rebind.example/h', policy))).toBe('blocked_address');
    expect(await codeOf(resolveTarget('https://mixed.example/h', policy))).toBe('blocked_address');
    expect(await codeOf(resolveTarget('https://metadata.example/h', policy))).toBe('blocked_address');
    expect(await codeOf(resolveTarget('https://v6.example/h', policy))).toBe('blocked_address');
    expect(await codeOf(resolveTarget('https://nowhere.example/h', policy))).toBe('dns_failure');
    expect(await codeOf(resolveTarget('https://empty.example/h', policy))).toBe('dns_failure');
    const ok = await resolveTarget('https://public.example/h', policy);
    expect(ok).toMatchObject({ host: 'public.example', address: '93.184.216.34', family: 4 });
    // The caller sees the host only (no DNS oracle); the address and its class are in the cause.
    const error = await resolveTarget('https://rebind.example/h', policy).catch((e: unknown) => e);
    expect(error).toMatchObject({
      message: 'Refusing to call rebind.example: not a public address',
      details: { host: 'rebind.example' },
      cause: { details: { address: '127.0.0.1', reason: 'loopback' } },
    });
    expect(JSON.stringify((error as { details: unknown }).details)).not.toContain('127.0.0.1');
  });
});

describe('attempts on the wire', () => {
  let server: TestServer;
  const hosts: string[] = [];
  beforeAll(async () => {
    server = await startServer(async (req, res) => {
      const received = await readBody(req);
      hosts.push(String(req.headers.host));
      if (req.url === '/hang') return; // never answers
      if (req.url === '/reset') return req.socket.destroy();
      if (req.url === '/echo') {
        res.end(JSON.stringify({ raw: req.rawHeaders, bytes: [...received] }));
        return;
      }
      if (req.url === '/huge') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('x'.repeat(1024 * 1024));
        return;
      }
      res.end('fine');
    });
  });
  afterAll(() => server.close());

  it('connects to the checked address with the original Host header, resolving once', async () => {
    const calls: string[] = [];
    const lookup: LookupFunction = async (host) => {
      calls.push(host);
      // A rebinding resolver: first answer allowed, any later answer internal and forbidden.
      return [{ address: calls.length === 1 ? '127.0.0.1' : '10.0.0.1', family: 4 }];
    };
    const policy = compileUrlPolicy({
      lookup,
      allowHttpHosts: ['hooks.example.test'],
      allowAddresses: ['127.0.0.1'],
    });
    const target = await resolveTarget(`http://hooks.example.test:${server.port}/ok`, policy);
    const before = hosts.length;
    const response = await sendAttempt({
      target,
      headers: {},
      body: new Uint8Array([123, 125]),
      timeoutMs: 2000,
    });
    expect(response.status).toBe(200);
    expect(response.body).toBe('fine');
    expect(hosts.slice(before)).toEqual([`hooks.example.test:${server.port}`]);
    expect(calls).toEqual(['hooks.example.test']);
  });

  it('sends each header once (names case-insensitive, the last wins) and the exact body bytes', async () => {
    const policy = compileUrlPolicy(LOCAL);
    const target = await resolveTarget(`${server.url}/echo`, policy);
    const send = (body: string | Uint8Array, headers: Record<string, string>) =>
      sendAttempt({ target, headers, body, timeoutMs: 2000 });
    const read = (r: { body: string }) => {
      const { raw, bytes } = JSON.parse(r.body) as { raw: string[]; bytes: number[] };
      const pairs: Array<[string, string]> = [];
      for (let i = 0; i < raw.length; i += 2) pairs.push([String(raw[i]).toLowerCase(), String(raw[i + 1])]);
      return { pairs, bytes: Buffer.from(bytes) };
    };
    const body = '{"note":"héllo ✓"}';
    const a = read(
      await send(body, { 'content-type': 'text/plain', 'Content-Type': 'application/json', 'x-event': 'a' }),
    );
    expect(a.pairs.filter(([n]) => n === 'content-type')).toEqual([['content-type', 'application/json']]);
    expect(a.pairs.filter(([n]) => n === 'host')).toEqual([['host', `127.0.0.1:${server.port}`]]);
    expect(a.pairs.find(([n]) => n === 'content-length')?.[1]).toBe(String(Buffer.byteLength(body)));
    expect(a.bytes.toString('utf8')).toBe(body);
    // A latin1 header value next to a UTF-8 body: each keeps its own encoding on the wire.
    const b = read(await send(body, { 'x-event': 'café' }));
    expect(b.pairs.find(([n]) => n === 'x-event')?.[1]).toBe(
      Buffer.from('café', 'latin1').toString('latin1'),
    );
    expect(b.bytes.toString('utf8')).toBe(body);
    const c = read(await send(new TextEncoder().encode(body), {}));
    expect(c.bytes.toString('utf8')).toBe(body);
  });

  it('times out, reports resets, and caps the response body', async () => {
    const policy = compileUrlPolicy(LOCAL);
    const at = (p: string) => resolveTarget(`${server.url}${p}`, policy);
    const hang = await sendAttempt({
      target: await at('/hang'),
      headers: {},
      body: new Uint8Array(),
      timeoutMs: 200,
    });
    expect(hang.status).toBeUndefined();
    expect(hang.error?.code).toBe('timeout');
    const reset = await sendAttempt({
      target: await at('/reset'),
      headers: {},
      body: new Uint8Array(),
      timeoutMs: 2000,
    });
    expect(reset.error?.code).toBe('connection_failed');
    const huge = await sendAttempt({
      target: await at('/huge'),
      headers: {},
      body: new Uint8Array(),
      timeoutMs: 2000,
      maxResponseBytes: 16 * 1024,
    });
    expect(huge.status).toBe(200);
    expect(huge.body.length).toBe(1024);
  });

  it('a worker refuses a host that resolves to loopback unless allow-listed; nothing is sent', async () => {
    const dir = tempDir('safety');
    const outbox = sqliteOutbox(`${dir}/o.db`);
    const contract = petContract();
    const lookup: LookupFunction = async () => [{ address: '127.0.0.1', family: 4 }];
    // Registration with the permissive policy (as if DNS pointed elsewhere then), delivery with the strict one.
    const manager = createEndpointManager({
      outbox,
      contract,
      urlPolicy: { lookup, allowHttpHosts: ['sneaky.example'], allowAddresses: ['127.0.0.1'] },
    });
    const { endpoint } = await manager.register({
      url: `http://sneaky.example:${server.port}/ok`,
      events: ['pet.adopted'],
    });
    const sender = createSender(contract, { outbox });
    const { messageId } = await sender.send('pet.adopted', { petId: 'p', by: 'q' });
    const before = hosts.length;
    const worker = createWorker({
      outbox,
      contract,
      urlPolicy: { lookup, allowHttpHosts: ['sneaky.example'] },
    });
    expect(await worker.runOnce()).toMatchObject({ attempted: 1, dead: 1 });
    expect(hosts.length).toBe(before);
    const [delivery] = await outbox.listDeliveries({ messageId });
    expect(delivery!.lastError).toContain('blocked_address');
    const [attempt] = await outbox.listAttempts({ endpointId: endpoint.id });
    expect(attempt).toMatchObject({ errorCode: 'blocked_address', outcome: 'failed' });
    await worker.stop();
    await outbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses insecure and internal URLs at registration', async () => {
    const dir = tempDir('safety-reg');
    const outbox = sqliteOutbox(`${dir}/o.db`);
    const manager = createEndpointManager({
      outbox,
      contract: petContract(),
      urlPolicy: { lookup: async () => [{ address: '192.168.1.20', family: 4 }] },
    });
    expect(await codeOf(manager.register({ url: 'http://example.com/h', events: ['pet.adopted'] }))).toBe(
      'insecure_url',
    );
    expect(
      await codeOf(manager.register({ url: 'https://printer.example/h', events: ['pet.adopted'] })),
    ).toBe('blocked_address');
    expect(await codeOf(manager.register({ url: 'https://8.8.8.8/h', events: ['pet.nope'] }))).toBe(
      'unknown_event',
    );
    expect(await manager.list()).toHaveLength(0);
    await outbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
