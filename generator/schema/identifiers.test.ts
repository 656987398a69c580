import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { createIdentifierAllocator, isSafeIdentifier, propertyKey, stringLiteral } from './identifiers.js';

/** Parses `text` as a declaration name with the real TypeScript scanner. */
function isValidDeclarationName(text: string): boolean {
  const source = ts.createSourceFile(
    'x.ts',
    `export interface ${text} {}\nexport const ${text}Value = 1;`,
    ts.ScriptTarget.ES2022,
  );
  const diagnostics = (source as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics;
  const first = source.statements[0];
  return (
    diagnostics.length === 0 &&
    first !== undefined &&
    ts.isInterfaceDeclaration(first) &&
    first.name.text === text
  );
}

describe('createIdentifierAllocator', () => {
  it('converts contract names to Pascal/camel identifiers', () => {
    const a = createIdentifierAllocator();
    expect(a.allocate('branch-protection-configuration-disabled', 'pascal')).toBe(
      'BranchProtectionConfigurationDisabled',
    );
    expect(a.allocate('pet.adopted', 'pascal', 'Schema')).toBe('PetAdoptedSchema');
    expect(a.allocate('issues.opened', 'camel')).toBe('issuesOpened');
    expect(a.allocate('HTTPServer', 'camel')).toBe('httpServer');
    expect(a.allocate('+1', 'pascal')).toBe('Plus1');
    expect(a.allocate('-1', 'pascal')).toBe('Minus1');
    expect(a.allocate('a/b', 'pascal')).toBe('AB');
    expect(a.allocate('2fa_enabled', 'pascal')).toBe('_2FaEnabled');
    expect(a.allocate('', 'pascal')).toBe('Schema');
    expect(a.allocate('日本', 'camel')).toBe('value');
  });

  it('avoids reserved words and names generated code depends on', () => {
    const a = createIdentifierAllocator();
    expect(a.allocate('default', 'camel')).toBe('default_');
    expect(a.allocate('z', 'camel')).toBe('z_');
    expect(a.allocate('error', 'pascal')).toBe('Error_');
    expect(a.allocate('record', 'pascal')).toBe('Record_');
    expect(a.allocate('string', 'camel')).toBe('string_');
  });

  it('never returns the same identifier twice, deterministically', () => {
    const a = createIdentifierAllocator();
    expect(a.allocate('pet', 'pascal')).toBe('Pet');
    expect(a.allocate('Pet', 'pascal')).toBe('Pet2');
    expect(a.allocate('pet', 'pascal', 'Schema')).toBe('PetSchema');
    expect(a.allocate('pet-schema', 'pascal')).toBe('PetSchema2');
    const b = createIdentifierAllocator();
    expect(['pet', 'Pet', 'pet'].map((n) => b.allocate(n, 'pascal'))).toEqual(['Pet', 'Pet2', 'Pet3']);
  });

  it('property: always valid, unique and not reserved, for arbitrary names', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.string({ unit: 'binary', maxLength: 20 }),
            fc.constantFrom<'pascal' | 'camel'>('pascal', 'camel'),
            fc.constantFrom('', 'Schema', 'Event', '$'),
          ),
          { maxLength: 30 },
        ),
        (requests) => {
          const allocator = createIdentifierAllocator();
          const seen = new Set<string>();
          for (const [name, style, suffix] of requests) {
            const id = allocator.allocate(name, style, suffix);
            expect(isSafeIdentifier(id), id).toBe(true);
            expect(seen.has(id), id).toBe(false);
            seen.add(id);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: identifiers are accepted by the TypeScript parser', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 16 }),
        fc.constantFrom<'pascal' | 'camel'>('pascal', 'camel'),
        (name, style) => {
          const id = createIdentifierAllocator().allocate(name, style);
          expect(isValidDeclarationName(id), id).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('propertyKey', () => {
  it('keeps identifiers bare and quotes everything else', () => {
    expect(propertyKey('name')).toBe('name');
    expect(propertyKey('default')).toBe('default');
    expect(propertyKey('$ref')).toBe('$ref');
    expect(propertyKey('+1')).toBe("'+1'");
    expect(propertyKey('content-type')).toBe("'content-type'");
    expect(propertyKey('123')).toBe("'123'");
    expect(propertyKey("it's")).toBe("'it\\'s'");
    expect(propertyKey('__proto__')).toBe("['__proto__']");
  });

  it('property: round-trips through a JS object literal and a TS type literal', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (name) => {
        const key = propertyKey(name);
        const object = new Function(`return { ${key}: 1 };`)() as Record<string, number>;
        expect(Object.keys(object)).toEqual([name]);
        const source = ts.createSourceFile('x.ts', `type T = { ${key}: 1 };`, ts.ScriptTarget.ES2022);
        expect(
          (source as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics,
        ).toHaveLength(0);
      }),
      { numRuns: 500 },
    );
  });

  it('property: string literals evaluate back to the original string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        expect(new Function(`return ${stringLiteral(value)};`)()).toBe(value);
      }),
      { numRuns: 500 },
    );
  });
});
