/**
 * One case per construct: a named schema plus values JSON Schema accepts and rejects. The runtime
 * tests assert the emitted zod agrees on every value (and that ajv agrees with the expectation);
 * the tsc test type-checks all of them as one module.
 */
import type { JsonSchema } from '../../model.js';

export interface Case {
  readonly schema: JsonSchema;
  readonly valid: readonly unknown[];
  readonly invalid: readonly unknown[];
  /** Other named schemas the case refers to. */
  readonly named?: Readonly<Record<string, JsonSchema>>;
}

const pet = {
  type: 'object',
  required: ['id', 'name'],
  properties: {
    id: { type: 'integer', format: 'int64' },
    name: { type: 'string' },
    tag: { type: 'string' },
  },
};

const cat = {
  type: 'object',
  required: ['petType', 'meows'],
  properties: { petType: { const: 'cat' }, meows: { type: 'boolean' } },
};
const dog = {
  type: 'object',
  required: ['petType', 'barks'],
  properties: { petType: { type: 'string', enum: ['dog'] }, barks: { type: 'integer' } },
};

export const cases: Readonly<Record<string, Case>> = {
  objectRequiredOptional: {
    schema: pet,
    valid: [
      { id: 1, name: 'rex' },
      { id: 2, name: 'tom', tag: 'cat', extra: { kept: true } },
    ],
    invalid: [{ id: 1 }, { id: 1.5, name: 'x' }, { id: 1, name: 'x', tag: 3 }, [], null, 'pet'],
  },
  objectClosed: {
    schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
    valid: [{}, { a: 'x' }],
    invalid: [{ a: 'x', b: 1 }, { b: 1 }],
  },
  objectClosedEmpty: {
    schema: { type: 'object', additionalProperties: false },
    valid: [{}],
    invalid: [{ a: 1 }, []],
  },
  objectRequiredClosed: {
    // Required but undeclared under additionalProperties:false can never be satisfied.
    schema: { type: 'object', required: ['a'], additionalProperties: false },
    valid: [],
    invalid: [{}, { a: 1 }],
  },
  objectOpenTrue: {
    schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
    valid: [{}, { a: 'x', b: [1] }],
    invalid: [{ a: 1 }],
  },
  objectAdditionalSchema: {
    schema: {
      type: 'object',
      required: ['a'],
      properties: { a: { type: 'integer' }, b: { type: 'boolean' } },
      additionalProperties: { type: 'string' },
    },
    valid: [{ a: 1 }, { a: 1, b: true, c: 'x', d: 'y' }],
    invalid: [{ a: 1, c: 2 }, { c: 'x' }],
  },
  objectMap: {
    schema: { type: 'object', additionalProperties: { type: 'number' } },
    valid: [{}, { x: 1, y: 2.5 }],
    invalid: [{ x: 'no' }],
  },
  objectEmpty: {
    schema: { type: 'object' },
    valid: [{}, { any: ['thing'] }],
    invalid: [[], 'x', null],
  },
  objectInferred: {
    schema: { properties: { a: { type: 'string' } }, required: ['a'] },
    valid: [{ a: 'x' }],
    invalid: [{}, { a: 1 }],
  },
  objectRequiredUndeclared: {
    schema: { type: 'object', required: ['must'], properties: { a: { type: 'string' } } },
    valid: [{ must: null }, { must: 0, a: 'x' }],
    invalid: [{}, { a: 'x' }],
  },
  objectPropertyCounts: {
    schema: { type: 'object', minProperties: 1, maxProperties: 2 },
    valid: [{ a: 1 }, { a: 1, b: 2 }],
    invalid: [{}, { a: 1, b: 2, c: 3 }],
  },
  objectOddKeys: {
    schema: {
      type: 'object',
      required: ['+1', 'content-type'],
      properties: {
        '+1': { type: 'integer' },
        '-1': { type: 'integer' },
        'content-type': { type: 'string' },
        'a/b': { type: 'string' },
        "it's": { type: 'string' },
        default: { type: 'string' },
        '123': { type: 'string' },
      },
    },
    valid: [{ '+1': 1, 'content-type': 'x', "it's": 'y', default: 'd', '123': 'n' }],
    invalid: [{ '+1': 1 }, { '+1': 'x', 'content-type': 'x' }],
  },
  nullableString: {
    schema: { type: ['string', 'null'] },
    valid: ['x', null],
    invalid: [1, {}, undefined],
  },
  typeArray: {
    schema: { type: ['null', 'integer', 'string'], minimum: 0, minLength: 2 },
    valid: [null, 0, 5, 'ab'],
    invalid: [-1, 1.5, 'a', true, []],
  },
  typeNumberAndInteger: {
    schema: { type: ['integer', 'number'] },
    valid: [1, 1.5],
    invalid: ['1'],
  },
  stringEnum: {
    schema: { type: 'string', enum: ['available', 'pending', 'sold'] },
    valid: ['available', 'sold'],
    invalid: ['AVAILABLE', null, 1],
  },
  enumWithNull: {
    schema: { type: ['string', 'null'], enum: ['a', 'b', null] },
    valid: ['a', null],
    invalid: ['c', 0],
  },
  enumMixed: {
    schema: { enum: ['a', 1, true, null, 2.5] },
    valid: ['a', 1, true, null, 2.5],
    invalid: ['1', false, 2, {}],
  },
  enumFilteredByType: {
    schema: { type: 'string', enum: ['a', null, 1] },
    valid: ['a'],
    invalid: [null, 1],
  },
  constString: {
    schema: { const: 'issues.opened' },
    valid: ['issues.opened'],
    invalid: ['issues.closed', null],
  },
  constNull: {
    schema: { const: null },
    valid: [null],
    invalid: [0, ''],
  },
  anyOfUnion: {
    schema: { anyOf: [{ type: 'string' }, { type: 'integer', minimum: 10 }] },
    valid: ['x', 10],
    invalid: [9, 10.5, null],
  },
  oneOfRefs: {
    schema: { oneOf: [{ $ref: '#/schemas/Cat' }, { $ref: '#/schemas/Dog' }] },
    named: { Cat: cat, Dog: dog },
    valid: [
      { petType: 'cat', meows: true },
      { petType: 'dog', barks: 3 },
    ],
    invalid: [{ petType: 'cat', barks: 3 }, { petType: 'cow' }, {}],
  },
  discriminatorInline: {
    schema: {
      oneOf: [cat, dog],
      discriminator: { propertyName: 'petType' },
    },
    valid: [
      { petType: 'cat', meows: false, extra: 1 },
      { petType: 'dog', barks: 1 },
    ],
    invalid: [{ petType: 'dog', meows: true }, { petType: 'bird' }, { meows: true }],
  },
  discriminatorRefsMapping: {
    schema: {
      oneOf: [{ $ref: '#/schemas/Cat' }, { $ref: '#/schemas/Dog' }],
      discriminator: { propertyName: 'petType', mapping: { cat: '#/schemas/Cat', dog: '#/schemas/Dog' } },
    },
    named: { Cat: cat, Dog: dog },
    valid: [
      { petType: 'cat', meows: true },
      { petType: 'dog', barks: 2 },
    ],
    invalid: [{ petType: 'cat', barks: 2 }, { petType: 'fish' }],
  },
  discriminatorNotLiteral: {
    // Branches do not pin the property to a literal: a plain union (JSON Schema semantics).
    schema: {
      oneOf: [
        {
          type: 'object',
          required: ['kind', 'a'],
          properties: { kind: { type: 'string' }, a: { type: 'string' } },
        },
        {
          type: 'object',
          required: ['kind', 'b'],
          properties: { kind: { type: 'string' }, b: { type: 'number' } },
        },
      ],
      discriminator: { propertyName: 'kind' },
    },
    valid: [
      { kind: 'x', a: 'y' },
      { kind: 'x', b: 1 },
    ],
    invalid: [{ kind: 'x' }],
  },
  allOfMerged: {
    schema: {
      allOf: [
        { $ref: '#/schemas/Pet' },
        { type: 'object', required: ['owner'], properties: { owner: { type: 'string' } } },
      ],
    },
    named: { Pet: pet },
    valid: [
      { id: 1, name: 'rex', owner: 'ann' },
      { id: 1, name: 'rex', owner: 'ann', other: [1] },
    ],
    invalid: [{ id: 1, name: 'rex' }, { owner: 'ann' }],
  },
  allOfRefsSharedKeys: {
    // Merged into one object: keys declared by several members meet (uri ∩ string, nested objects,
    // arrays of objects), required keys add up, property counts combine.
    schema: {
      allOf: [
        {
          type: 'object',
          minProperties: 2,
          properties: { url: { type: 'string' }, n: { type: 'number' } },
          required: ['n'],
        },
        { $ref: '#/schemas/Base' },
        { $ref: '#/schemas/Extra' },
      ],
    },
    named: {
      Base: {
        type: 'object',
        required: ['url'],
        properties: {
          url: { type: 'string', format: 'uri' },
          owner: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
          tags: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
          n: { type: 'integer' },
        },
      },
      Extra: {
        type: 'object',
        maxProperties: 4,
        properties: {
          owner: { type: 'object', required: ['login'], properties: { login: { type: 'string' } } },
          tags: { type: 'array', items: { type: 'object', required: ['a'] }, maxItems: 2 },
        },
      },
    },
    valid: [
      { url: 'https://x.example/', n: 1 },
      { url: 'https://x.example/', n: 1, owner: { id: 1, login: 'o', more: true }, tags: [{ a: 'b' }] },
    ],
    invalid: [
      { url: 'not a uri', n: 1 },
      { url: 'https://x.example/', n: 1.5 },
      { url: 'https://x.example/' },
      { n: 1 },
      { url: 'https://x.example/', n: 1, owner: { id: 1 } },
      { url: 'https://x.example/', n: 1, owner: { login: 'o' } },
      { url: 'https://x.example/', n: 1, tags: [{}] },
      { url: 'https://x.example/', n: 1, tags: [{ a: 1 }] },
      { url: 'https://x.example/', n: 1, tags: [{ a: 'b' }, { a: 'b' }, { a: 'b' }] },
      { url: 'https://x.example/', n: 1, owner: { id: 1, login: 'o' }, tags: [], extra: 1 },
      [],
      null,
    ],
  },
  allOfClosedNested: {
    // A key whose schema in one member is a closed object: not merged (the intersection's nested
    // check rejects an unknown key there, as JSON Schema does).
    schema: {
      allOf: [
        {
          type: 'object',
          properties: { p: { type: 'object', properties: { a: {} }, additionalProperties: false } },
        },
        { type: 'object', properties: { p: { type: 'object', properties: { b: {} } } } },
      ],
    },
    valid: [{ p: { a: 1 } }, {}],
    invalid: [{ p: { b: 1 } }, { p: { a: 1, c: 2 } }],
  },
  allOfWithOwnProperties: {
    schema: {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      allOf: [{ properties: { b: { type: 'integer' } }, required: ['b'] }],
    },
    valid: [{ a: 'x', b: 1 }],
    invalid: [{ a: 'x' }, { b: 1 }, { a: 'x', b: 'y' }],
  },
  arrayItems: {
    schema: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
    valid: [['a'], ['a', 'b', 'c']],
    invalid: [[], ['a', 'b', 'c', 'd'], [1], {}],
  },
  arrayUnique: {
    schema: { type: 'array', items: { type: 'integer' }, uniqueItems: true },
    valid: [[], [1, 2, 3]],
    invalid: [[1, 1]],
  },
  tuple: {
    schema: {
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'integer' }],
      items: false,
      minItems: 1,
    },
    valid: [['a'], ['a', 1]],
    invalid: [[], [1], ['a', 'b'], ['a', 1, 2]],
  },
  tupleOpenRest: {
    schema: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'boolean' } },
    valid: [[], ['a'], ['a', true, false]],
    invalid: [[1], ['a', 1]],
  },
  tupleRequiredUnknown: {
    schema: { type: 'array', prefixItems: [{}, { type: 'string' }], minItems: 1 },
    valid: [[null], [1, 'a'], [{}, 'b', 3]],
    invalid: [[], [1, 2]],
  },
  allOfTupleMissingRequired: {
    // Regression: zod's intersection threw "Unmergable intersection" here instead of failing.
    schema: {
      allOf: [
        { type: 'object' },
        {
          type: 'object',
          properties: { t: { type: 'array', prefixItems: [{}, { type: 'string' }], minItems: 1 } },
        },
      ],
    },
    valid: [{}, { t: [1] }, { t: [null, 'x'] }],
    invalid: [{ t: [] }, { t: [1, 2] }],
  },
  stringBounds: {
    schema: { type: 'string', minLength: 2, maxLength: 3, pattern: '^[a-z😀]+$' },
    valid: ['ab', 'abc', '😀😀😀'],
    invalid: ['a', 'abcd', 'AB', '😀'],
  },
  stringPatternUnanchored: {
    schema: { type: 'string', pattern: 'b/c' },
    valid: ['ab/cd'],
    invalid: ['abc'],
  },
  formatDateTime: {
    schema: { type: 'string', format: 'date-time' },
    valid: ['2024-01-31T10:00:00Z', '2024-01-31T10:00:00.123+02:00'],
    invalid: ['2024-01-31', 'yesterday', '2024-02-30T10:00:00Z'],
  },
  formatDate: {
    schema: { type: 'string', format: 'date' },
    valid: ['2024-02-29'],
    invalid: ['2023-02-29', '2024-1-1'],
  },
  formatTime: {
    schema: { type: 'string', format: 'time' },
    valid: ['10:00:00Z', '23:59:59.5+01:00'],
    invalid: ['10:00', '25:00:00Z'],
  },
  formatEmail: {
    schema: { type: 'string', format: 'email' },
    valid: ['octocat@github.com', 'a!b@example.com'],
    invalid: ['not-an-email', '@example.com'],
  },
  formatUri: {
    schema: { type: 'string', format: 'uri' },
    valid: [
      'https://example.com/x?y=1',
      'mailto:a@example.com',
      'https://api.github.com/repos/o/r/issues?q=a%20b#frag/?x',
      'urn:isbn:0451450523',
      'https://[::1]:8080/',
    ],
    // z.url() accepted (and trimmed) the whitespace ones and the non-ASCII one.
    invalid: [
      '/relative/path',
      'example.com',
      'https://exa mple.com',
      ' https://example.com',
      'https://example.com\n',
      'https://example.com/%zz',
      'https://exämple.com',
      'https://example.com/{id}',
      'https://example.com/#a#b',
      '1http://example.com',
    ],
  },
  formatUuid: {
    schema: { type: 'string', format: 'uuid' },
    valid: ['123e4567-e89b-12d3-a456-426614174000', '00000000-0000-0000-0000-000000000001'],
    invalid: ['123e4567e89b12d3a456426614174000', 'x'],
  },
  formatIp: {
    schema: {
      anyOf: [
        { type: 'string', format: 'ipv4' },
        { type: 'string', format: 'ipv6' },
      ],
    },
    valid: ['192.168.0.1', '::1', '2001:db8::8a2e:370:7334'],
    invalid: ['256.0.0.1', 'localhost'],
  },
  formatHostname: {
    schema: { type: 'string', format: 'hostname' },
    valid: ['example.com', 'localhost'],
    invalid: ['-bad.com', 'under_score.com'],
  },
  formatUnknown: {
    schema: { type: 'string', format: 'uri-template' },
    valid: ['https://api.github.com/users{/id}', ''],
    invalid: [1],
  },
  numberBounds: {
    schema: { type: 'number', minimum: 0, exclusiveMaximum: 10, multipleOf: 0.5 },
    valid: [0, 9.5, 2],
    invalid: [-0.5, 10, 1.25],
  },
  integerBounded: {
    schema: { type: 'integer', exclusiveMinimum: 0, maximum: 100 },
    valid: [1, 100],
    invalid: [0, 101, 1.5],
  },
  integerUnbounded: {
    // JSON Schema integers are unbounded: 2^60 is valid (zod's z.int() would reject it).
    schema: { type: 'integer' },
    valid: [0, -5, 2 ** 60, 1e20],
    invalid: [0.5, '1', Number.NaN],
  },
  booleanAndNull: {
    schema: {
      type: 'object',
      required: ['b', 'n'],
      properties: { b: { type: 'boolean' }, n: { type: 'null' } },
    },
    valid: [{ b: false, n: null }],
    invalid: [
      { b: 'false', n: null },
      { b: true, n: 0 },
    ],
  },
  unknownEmpty: {
    schema: {},
    valid: [null, 1, 'x', { a: 1 }, [1]],
    invalid: [],
  },
  unknownTrue: {
    schema: true,
    valid: [null, 0, {}],
    invalid: [],
  },
  neverFalse: {
    schema: false,
    valid: [],
    invalid: [null, 0, {}],
  },
  notIsPermissive: {
    // `not` is not enforced (warning): everything JSON Schema accepts passes, plus more.
    schema: { type: 'string', not: { const: 'forbidden' } },
    valid: ['x'],
    invalid: [1],
  },
  recursive: {
    schema: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#/schemas/recursive' } },
      },
    },
    valid: [{ name: 'root' }, { name: 'root', children: [{ name: 'a', children: [{ name: 'b' }] }] }],
    invalid: [
      { name: 'root', children: [{ children: [] }] },
      { name: 'root', children: [{ name: 'a', children: [{ name: 1 }] }] },
    ],
  },
  mutualRecursion: {
    schema: { $ref: '#/schemas/TreeA' },
    named: {
      TreeA: { type: 'object', properties: { b: { $ref: '#/schemas/TreeB' } } },
      TreeB: { type: ['object', 'null'], required: ['a'], properties: { a: { $ref: '#/schemas/TreeA' } } },
    },
    valid: [{}, { b: null }, { b: { a: { b: { a: {} } } } }],
    invalid: [{ b: {} }, { b: { a: { b: 1 } } }],
  },
  nullableRef: {
    schema: { anyOf: [{ $ref: '#/schemas/Pet' }, { type: 'null' }] },
    named: { Pet: pet },
    valid: [null, { id: 1, name: 'x' }],
    invalid: [{ id: 1 }, 'x'],
  },
  documented: {
    schema: {
      title: 'Documented',
      description: 'Has docs. Contains */ which must be escaped.\nSecond line.',
      type: 'object',
      properties: {
        old: { type: 'string', deprecated: true, description: 'Use `new`.' },
        level: { type: 'integer', default: 3, readOnly: true },
        secret: { type: 'string', writeOnly: true },
      },
    },
    valid: [{}, { old: 'x', level: 1, secret: 's' }],
    invalid: [{ level: 'high' }],
  },
};
