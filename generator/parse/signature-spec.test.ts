import { describe, expect, it } from 'vitest';
import { GeneratorError } from '../errors.js';
import { parseSignatureSpec } from './signature-spec.js';

describe('parseSignatureSpec', () => {
  it.each([
    ['standard-webhooks', { kind: 'standard-webhooks' }],
    ['none', { kind: 'none' }],
    ['svix', { kind: 'preset', preset: 'svix' }],
    ['github', { kind: 'preset', preset: 'github' }],
    [
      'hmac:X-Up-Authenticity-Signature,sha256,hex',
      { kind: 'hmac', header: 'X-Up-Authenticity-Signature', algorithm: 'sha256', encoding: 'hex' },
    ],
    [
      'hmac:HmacSignature,base64',
      { kind: 'hmac', header: 'HmacSignature', algorithm: 'sha256', encoding: 'base64' },
    ],
    [
      'hmac:X-Sig,sha512,base64,prefix=v1=,timestamp=X-Ts,id=X-Id,signed={id}.{timestamp}.{body}',
      {
        kind: 'hmac',
        header: 'X-Sig',
        algorithm: 'sha512',
        encoding: 'base64',
        prefix: 'v1=',
        timestampHeader: 'X-Ts',
        idHeader: 'X-Id',
        signedContent: '{id}.{timestamp}.{body}',
      },
    ],
  ])('%s', (text, config) => {
    expect(parseSignatureSpec(text)).toEqual(config);
  });

  it.each(['hmac', 'hmac:', 'hmac:X Sig', 'hmac:X,md5', 'hmac:X,signed={timestamp}', 'standard', ''])(
    'refuses %j, naming what is expected',
    (text) => {
      let error: unknown;
      try {
        parseSignatureSpec(text, '--signature');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(GeneratorError);
      expect((error as GeneratorError).code).toBe('invalid_argument');
      expect((error as GeneratorError).expected).toContain('hmac:<header>');
    },
  );
});
