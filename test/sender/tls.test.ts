/**
 * HTTPS with a pinned address: the socket goes to the checked IP while SNI and the certificate check
 * use the host name, so a certificate for `hooks.example.test` is accepted and one for another name
 * is not. The test CA is made with the openssl CLI (skipped with a reason when it is missing, a
 * failure under CI=true).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendAttempt } from '../../runtime/deliver/http-attempt.js';
import { compileUrlPolicy, resolveTarget } from '../../runtime/deliver/url-policy.js';
import { missingBinary } from '../support/requires.js';
import { tempDir } from './helpers.js';

describe.skipIf(missingBinary('openssl', 'the TLS pinning tests'))('HTTPS to a pinned address', () => {
  let dir: string;
  let server: https.Server;
  let port: number;
  let ca: Buffer;
  const sni: Array<string | false> = [];

  beforeAll(async () => {
    dir = tempDir('tls');
    const file = (name: string) => path.join(dir, name);
    const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
    run([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=gw test CA',
    ]);
    run([
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'srv.key',
      '-out',
      'srv.csr',
      '-subj',
      '/CN=hooks.example.test',
    ]);
    fs.writeFileSync(file('ext.cnf'), 'subjectAltName=DNS:hooks.example.test\n');
    run([
      'x509',
      '-req',
      '-in',
      'srv.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'srv.pem',
      '-days',
      '2',
      '-extfile',
      'ext.cnf',
    ]);
    ca = fs.readFileSync(file('ca.pem'));
    server = https.createServer(
      { key: fs.readFileSync(file('srv.key')), cert: fs.readFileSync(file('srv.pem')) },
      (req, res) => {
        sni.push((req.socket as unknown as { servername: string | false }).servername);
        req.resume();
        req.on('end', () => res.end(`host=${req.headers.host}`));
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const agents = () => ({ http: new http.Agent(), https: new https.Agent({ keepAlive: true, ca }) });

  it('verifies the certificate against the host name while connecting to the checked IP', async () => {
    const policy = compileUrlPolicy({
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
      allowAddresses: ['127.0.0.1'],
    });
    const target = await resolveTarget(`https://hooks.example.test:${port}/hook`, policy);
    const a = agents();
    const response = await sendAttempt({
      target,
      headers: {},
      body: new Uint8Array([123, 125]),
      timeoutMs: 5000,
      agents: a,
    });
    a.https.destroy();
    expect(response.error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(response.body).toBe(`host=hooks.example.test:${port}`);
    expect(sni.at(-1)).toBe('hooks.example.test');
  });

  it('refuses a certificate that does not match the host name', async () => {
    const policy = compileUrlPolicy({
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
      allowAddresses: ['127.0.0.1'],
    });
    const target = await resolveTarget(`https://other.example.test:${port}/hook`, policy);
    const a = agents();
    const response = await sendAttempt({
      target,
      headers: {},
      body: new Uint8Array(),
      timeoutMs: 5000,
      agents: a,
    });
    a.https.destroy();
    expect(response.status).toBeUndefined();
    expect(response.error?.code).toBe('connection_failed');
    expect(response.error?.message).toMatch(/ERR_TLS_CERT_ALTNAME_INVALID/);
  });
});
