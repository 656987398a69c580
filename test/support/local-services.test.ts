/** The local-default probes: a protocol-level answer sets the variable; anything else leaves it unset. */
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import {
  formatDefaults,
  LOCAL_SERVICES,
  type LocalService,
  probeSocket,
  useLocalDefaults,
} from './local-services.js';

const servers: net.Server[] = [];
const sockets: net.Socket[] = [];
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A server on a free port that writes `answer` once it receives something (or at once). */
async function fakeServer(answer: string, speaksFirst = false): Promise<number> {
  const server = net.createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    if (speaksFirst) socket.write(answer);
    else socket.once('data', () => socket.write(answer));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

/** A port nothing listens on: bind, read the port, close. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const service = (name: string): LocalService => LOCAL_SERVICES.find((s) => s.env === name)!;

describe('probes', () => {
  it('the Redis probe wants +PONG, not just an open port', async () => {
    const redis = service('REDIS_URL');
    await expect(
      redis.probe(`redis://127.0.0.1:${await fakeServer('+PONG\r\n')}`, 1000),
    ).resolves.toBeUndefined();
    await expect(
      redis.probe(`redis://127.0.0.1:${await fakeServer('-NOAUTH Authentication required.\r\n')}`, 1000),
    ).rejects.toThrow(/unexpected answer "-NOAUTH/);
    await expect(redis.probe(`redis://127.0.0.1:${await closedPort()}`, 1000)).rejects.toThrow(
      /ECONNREFUSED/,
    );
  });

  it('NATS must speak first with INFO; AMQP must answer its header with a method frame', async () => {
    const nats = service('NATS_URL');
    await expect(nats.probe(`nats://127.0.0.1:${await fakeServer('INFO {}\r\n', true)}`, 1000)).resolves.toBe(
      undefined,
    );
    await expect(
      nats.probe(`nats://127.0.0.1:${await fakeServer('HTTP/1.1 400\r\n', true)}`, 1000),
    ).rejects.toThrow(/unexpected answer/);
    const amqp = service('AMQP_URL');
    await expect(
      amqp.probe(`amqp://127.0.0.1:${await fakeServer('\x01\x00\x00')}`, 1000),
    ).resolves.toBeUndefined();
    await expect(amqp.probe(`amqp://127.0.0.1:${await fakeServer('+PONG\r\n')}`, 1000)).rejects.toThrow(
      /unexpected answer/,
    );
  });

  it('a server that accepts and never answers times out', async () => {
    const silent = net.createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => {});
    });
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    await expect(probeSocket(`redis://127.0.0.1:${port}`, 6379, 'PING\r\n', () => true, 200)).rejects.toThrow(
      'no answer within 200 ms',
    );
  });

  // The real servers of this machine (CI runs them; the suite's globalSetup found them).
  it('the PostgreSQL and Redis probes accept the real servers', async () => {
    const pgUrl = process.env['DATABASE_URL'] ?? service('DATABASE_URL').url;
    const redisUrl = process.env['REDIS_URL'] ?? service('REDIS_URL').url;
    await expect(service('DATABASE_URL').probe(pgUrl, 2000)).resolves.toBeUndefined();
    await expect(service('REDIS_URL').probe(redisUrl, 2000)).resolves.toBeUndefined();
  });
});

describe('useLocalDefaults', () => {
  it('sets only unset (or empty) variables whose default answers, and says which', async () => {
    const fake = (env: string, answers: boolean): LocalService => ({
      env,
      service: `${env}-service`,
      url: `x://${env.toLowerCase()}`,
      probe: async () => {
        if (!answers) throw new Error('connect ECONNREFUSED');
      },
    });
    const env: Record<string, string | undefined> = { A: 'mine', B: '' };
    const outcome = await useLocalDefaults(env, [fake('A', true), fake('B', true), fake('C', false)]);
    expect(env).toEqual({ A: 'mine', B: 'x://b' });
    expect(outcome).toEqual({
      used: [{ env: 'B', url: 'x://b' }],
      absent: [{ env: 'C', service: 'C-service', url: 'x://c', why: 'connect ECONNREFUSED' }],
    });
    expect(formatDefaults(outcome)).toEqual([
      'test services: B unset, using x://b (it answered)',
      'test services: C unset and no C-service at x://c (connect ECONNREFUSED); its tests skip',
    ]);
  });
});
