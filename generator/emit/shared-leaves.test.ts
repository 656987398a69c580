import { describe, expect, it } from 'vitest';
import { shareLeaves } from './shared-leaves.js';

describe('shareLeaves', () => {
  it('replaces leaves used at least three times and declares them once, longest leaf first', () => {
    const body = [
      'a: z.string(),',
      'b: z.string().optional(),',
      "c: z.number().refine(Number.isInteger, 'Expected an integer'),",
      "d: z.number().refine(Number.isInteger, 'Expected an integer').gte(0),",
      "e: z.number().refine(Number.isInteger, 'Expected an integer').optional(),",
      'f: z.array(z.string()),',
      'g: z.number(),',
    ].join('\n');
    const { body: out, declarations } = shareLeaves(body, 'classic');
    expect(declarations).toBe(
      "// Leaf schemas used throughout, built once: zod schemas are immutable, so sharing them is safe.\nconst zInteger = z.number().refine(Number.isInteger, 'Expected an integer');\nconst zString = z.string();\n",
    );
    expect(out).toBe(
      [
        'a: zString,',
        'b: zString.optional(),',
        'c: zInteger,',
        'd: zInteger.gte(0),',
        'e: zInteger.optional(),',
        'f: z.array(zString),',
        'g: z.number(),',
      ].join('\n'),
    );
  });

  it('never touches a leaf spelled inside a string, a regex or a comment, or part of a longer name', () => {
    const body = [
      "a: z.enum(['z.string()', \"z.string()\", 'it\\'s z.string()']),",
      'b: z.string().regex(/z.string()|[/]z.string()/u),',
      'c: z.string(), // z.string()',
      '/* z.string() */ d: z.string(),',
      'e: xz.string(), f: y.z.string(), g: z.string()Extra,',
    ].join('\n');
    const { body: out } = shareLeaves(body, 'classic');
    expect(out).toBe(
      [
        "a: z.enum(['z.string()', \"z.string()\", 'it\\'s z.string()']),",
        'b: zString.regex(/z.string()|[/]z.string()/u),',
        'c: zString, // z.string()',
        '/* z.string() */ d: zString,',
        'e: xz.string(), f: y.z.string(), g: z.string()Extra,',
      ].join('\n'),
    );
  });

  it('has the mini spellings for mini output, and leaves text without repeats alone', () => {
    const mini = "z.number().check(z.refine(Number.isInteger, 'Expected an integer'))";
    const { body, declarations } = shareLeaves([mini, mini, `${mini}.check(z.gte(0))`].join(', '), 'mini');
    expect(body).toBe('zInteger, zInteger, zInteger.check(z.gte(0))');
    expect(declarations).toContain(`const zInteger = ${mini};`);
    expect(shareLeaves('z.string(), z.string()', 'classic')).toEqual({
      body: 'z.string(), z.string()',
      declarations: '',
    });
  });
});
