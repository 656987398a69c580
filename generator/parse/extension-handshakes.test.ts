import { describe, expect, it } from 'vitest';
import { GeneratorError } from '../errors.js';
import type { Loc } from '../load/document-store.js';
import { readRootExtension } from './extension.js';

const root = (extension: unknown): Loc => {
  const value = { openapi: '3.1.0', 'x-gen-webhooks': extension };
  return {
    doc: { id: '/specs/doc.yaml', display: 'specs/doc.yaml', value, rawScalar: () => undefined },
    pointer: '',
    value,
  };
};

function error(extension: unknown): {
  pointer: string | undefined;
  message: string;
  expected: string | undefined;
} {
  try {
    readRootExtension(root(extension));
  } catch (e) {
    if (!(e instanceof GeneratorError)) throw e;
    expect(e.code).toBe('invalid_extension');
    expect(e.file).toBe('specs/doc.yaml');
    return { pointer: e.pointer, message: e.message, expected: e.expected };
  }
  throw new Error('expected invalid_extension');
}

const P = '/x-gen-webhooks/handshakes';

describe('x-gen-webhooks.handshakes', () => {
  it('accepts every kind and keeps it as written', () => {
    const handshakes = [
      {
        kind: 'echo',
        method: 'POST',
        signed: true,
        when: { body: { '/type': 'url_verification', '/v': 2, '/on': true } },
        challenge: { body: '/challenge' },
        respond: { kind: 'json', field: 'challenge' },
      },
      {
        kind: 'echo',
        method: 'GET',
        when: { query: { 'hub.mode': 'subscribe' } },
        verifyToken: { query: 'hub.verify_token' },
        challenge: { query: 'hub.challenge' },
      },
      { kind: 'echo', signed: false, challenge: { query: 'validationToken' }, respond: { kind: 'text' } },
      {
        kind: 'hmac-token',
        signed: true,
        token: { body: '/payload/plainToken' },
        algorithm: 'sha512',
        encoding: 'base64',
        respond: { tokenField: 'plainToken', hashField: 'encryptedToken' },
      },
      { kind: 'cloudevents', allowedOrigins: '*', allowedRate: 60 },
    ];
    expect(readRootExtension(root({ handshakes })).handshakes).toEqual(handshakes);
  });

  it.each([
    ['not a list', { handshakes: { kind: 'echo' } }, P, /non-empty list/],
    ['an empty list', { handshakes: [] }, P, /non-empty list/],
    ['an unknown kind', { handshakes: [{ kind: 'ping' }] }, `${P}/0/kind`, /invalid handshake kind "ping"/],
    [
      'an unknown key',
      { handshakes: [{ kind: 'echo', challenge: { body: '/c' }, echo: 1 }] },
      `${P}/0/echo`,
      /unknown key "echo"/,
    ],
    ['no challenge', { handshakes: [{ kind: 'echo' }] }, `${P}/0/challenge`, /challenge must be a mapping/],
    [
      'two sources',
      { handshakes: [{ kind: 'echo', challenge: { body: '/c', query: 'c' } }] },
      `${P}/0/challenge`,
      /exactly one of body, query/,
    ],
    [
      'a body field that is no pointer',
      { handshakes: [{ kind: 'echo', challenge: { body: 'challenge' } }] },
      `${P}/0/challenge/body`,
      /JSON pointer/,
    ],
    [
      'a GET reading the body',
      { handshakes: [{ kind: 'echo', method: 'GET', challenge: { body: '/c' } }] },
      `${P}/0/challenge/body`,
      /GET handshake has no body/,
    ],
    [
      'a verify token with two sources',
      {
        handshakes: [{ kind: 'echo', challenge: { query: 'c' }, verifyToken: { query: 't', body: '/t' } }],
      },
      `${P}/0/verifyToken`,
      /verifyToken must name exactly one of body, query/,
    ],
    [
      'a verify token that is no mapping',
      { handshakes: [{ kind: 'echo', challenge: { query: 'c' }, verifyToken: 'hub.verify_token' }] },
      `${P}/0/verifyToken`,
      /verifyToken must be a mapping/,
    ],
    [
      'a verify token body field that is no pointer',
      { handshakes: [{ kind: 'echo', challenge: { query: 'c' }, verifyToken: { body: 'token' } }] },
      `${P}/0/verifyToken/body`,
      /verifyToken\.body must be a JSON pointer/,
    ],
    [
      'a GET reading the verify token from the body',
      {
        handshakes: [{ kind: 'echo', method: 'GET', challenge: { query: 'c' }, verifyToken: { body: '/t' } }],
      },
      `${P}/0/verifyToken/body`,
      /GET handshake has no body to read the verify token from/,
    ],
    [
      'a verify token on an hmac-token handshake',
      {
        handshakes: [
          {
            kind: 'hmac-token',
            token: { body: '/t' },
            verifyToken: { query: 'v' },
            algorithm: 'sha256',
            encoding: 'hex',
            respond: { tokenField: 'a', hashField: 'b' },
          },
        ],
      },
      `${P}/0/verifyToken`,
      /unknown key "verifyToken"/,
    ],
    [
      'a bad method',
      { handshakes: [{ kind: 'echo', method: 'PUT', challenge: { query: 'c' } }] },
      `${P}/0/method`,
      /invalid handshake method "PUT"/,
    ],
    [
      'signed not a boolean',
      { handshakes: [{ kind: 'echo', signed: 'yes', challenge: { query: 'c' } }] },
      `${P}/0/signed`,
      /true or false/,
    ],
    [
      'a when.body key that is no pointer',
      { handshakes: [{ kind: 'echo', challenge: { query: 'c' }, when: { body: { type: 'x' } } }] },
      `${P}/0/when/body/type`,
      /not a JSON pointer/,
    ],
    [
      'a when.body value that is no scalar',
      { handshakes: [{ kind: 'echo', challenge: { query: 'c' }, when: { body: { '/t': [1] } } }] },
      `${P}/0/when/body/~1t`,
      /string, number or boolean/,
    ],
    [
      'a json respond without field',
      { handshakes: [{ kind: 'echo', challenge: { query: 'c' }, respond: { kind: 'json' } }] },
      `${P}/0/respond/field`,
      /non-empty string/,
    ],
    [
      'an hmac-token without algorithm',
      {
        handshakes: [
          {
            kind: 'hmac-token',
            token: { body: '/t' },
            encoding: 'hex',
            respond: { tokenField: 'a', hashField: 'b' },
          },
        ],
      },
      `${P}/0/algorithm`,
      /invalid handshake algorithm/,
    ],
    [
      'an hmac-token with md5',
      {
        handshakes: [
          {
            kind: 'hmac-token',
            token: { body: '/t' },
            algorithm: 'md5',
            encoding: 'hex',
            respond: { tokenField: 'a', hashField: 'b' },
          },
        ],
      },
      `${P}/0/algorithm`,
      /"md5"/,
    ],
    [
      'an unsigned hmac-token (its answer would be a MAC for anyone: a signing oracle)',
      {
        handshakes: [
          { kind: 'cloudevents', allowedOrigins: '*' },
          {
            kind: 'hmac-token',
            signed: false,
            token: { body: '/t' },
            algorithm: 'sha256',
            encoding: 'hex',
            respond: { tokenField: 'a', hashField: 'b' },
          },
        ],
      },
      `${P}/1/signed`,
      /"hmac-token" handshake must be signed/,
    ],
    [
      'an hmac-token respond missing hashField',
      {
        handshakes: [
          {
            kind: 'hmac-token',
            token: { body: '/t' },
            algorithm: 'sha256',
            encoding: 'hex',
            respond: { tokenField: 'a' },
          },
        ],
      },
      `${P}/0/respond/hashField`,
      /non-empty string/,
    ],
    [
      'cloudevents without origins',
      { handshakes: [{ kind: 'cloudevents' }] },
      `${P}/0/allowedOrigins`,
      /"\*" or a non-empty list/,
    ],
    [
      'cloudevents with a rate of 0',
      { handshakes: [{ kind: 'cloudevents', allowedOrigins: '*', allowedRate: 0 }] },
      `${P}/0/allowedRate`,
      /invalid allowedRate 0/,
    ],
    [
      'two cloudevents',
      {
        handshakes: [
          { kind: 'cloudevents', allowedOrigins: '*' },
          { kind: 'cloudevents', allowedOrigins: '*' },
        ],
      },
      `${P}/1`,
      /only one "cloudevents"/,
    ],
    [
      'handshakes beside a preset',
      {
        signature: { kind: 'preset', preset: 'slack' },
        handshakes: [{ kind: 'cloudevents', allowedOrigins: '*' }],
      },
      P,
      /"slack" preset/,
    ],
  ])('refuses %s with its pointer', (_, extension, pointer, message) => {
    const e = error(extension);
    expect(e.pointer).toBe(pointer);
    expect(e.message).toMatch(message);
    expect(e.expected).toBeTruthy();
  });
});
