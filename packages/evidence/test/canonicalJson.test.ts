import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { canonicalByteLength, canonicalJson, canonicalSha256, isReaError } from '@rea/evidence';
import { sharedTestdata } from '@rea/test-helpers';
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

const vectors = sharedTestdata('rfc8785');
if (vectors === null) console.warn('skipped RFC 8785 vectors: ../shared/testdata/rfc8785 is absent');

describe('canonicalJson', () => {
  (vectors === null ? describe.skip : describe)('RFC 8785 reference vectors', () => {
    const names = vectors === null ? [] : readdirSync(join(vectors, 'input')).filter((f) => f.endsWith('.json'));
    it('should have the six reference vectors', () => {
      expect(names.sort()).toEqual([
        'arrays.json',
        'french.json',
        'structures.json',
        'unicode.json',
        'values.json',
        'weird.json',
      ]);
    });
    it.each(names)('should produce the reference bytes for %s', (name) => {
      const input: unknown = JSON.parse(readFileSync(join(vectors!, 'input', name), 'utf8'));
      const expected = readFileSync(join(vectors!, 'output', name));
      const hex = readFileSync(join(vectors!, 'outhex', name.replace(/\.json$/, '.txt')), 'utf8').replace(/\s+/g, '');
      const actual = Buffer.from(canonicalJson(input), 'utf8');
      expect(actual.equals(expected)).toBe(true);
      expect(actual.toString('hex')).toBe(hex.toLowerCase());
      expect(canonicalSha256(input)).toBe(createHash('sha256').update(expected).digest('hex'));
    });
  });

  it('should serialize doubles as ECMAScript does', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(canonicalJson(n)).toBe(JSON.stringify(n));
      }),
      { numRuns: 2000 },
    );
    expect(canonicalJson([-0, 1e21, 1e-7, 5e-324, 0.1 + 0.2])).toBe('[0,1e+21,1e-7,5e-324,0.30000000000000004]');
  });

  it('should agree with an independent implementation on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 500 },
    );
  });

  it('should measure the UTF-8 size of the canonical form', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, text) => {
        expect(canonicalByteLength(value)).toBe(Buffer.byteLength(canonicalize(value)!, 'utf8'));
        expect(canonicalByteLength({ text })).toBe(Buffer.byteLength(canonicalize({ text })!, 'utf8'));
      }),
      { numRuns: 300 },
    );
    expect(canonicalByteLength({ é: '😀' })).toBe(13); // {"é":"😀"}: 1+1+2+1+1+1+4+1+1 bytes
  });

  it('should serialize tables whose rows vary in shape like an independent implementation', () => {
    const row = fc.dictionary(
      fc.constantFrom('id', 'b', 'a', 'z', 'ä', '10', '2', 'id2'),
      fc.jsonValue({ maxDepth: 1 }),
      {
        minKeys: 1,
      },
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constant('id'), row), { maxLength: 60 }), (rows) => {
        // Every row begins with "id" so that many shapes share a first key.
        const table = rows.map(([, rest]) => ({ id: 1, ...rest }));
        expect(canonicalJson(table)).toBe(canonicalize(table));
      }),
      { numRuns: 300 },
    );
  });

  it('should be idempotent and independent of key order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const once = canonicalJson(value);
        expect(canonicalJson(JSON.parse(once))).toBe(once);
        const reversed = JSON.parse(JSON.stringify(value), function (this: unknown, _k, v: unknown) {
          if (v && typeof v === 'object' && !Array.isArray(v)) {
            return Object.fromEntries(Object.entries(v as object).reverse());
          }
          return v;
        }) as unknown;
        expect(canonicalJson(reversed)).toBe(once);
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['NaN', NaN],
    ['Infinity', [1, Infinity]],
    ['undefined in an object', { a: undefined }],
    ['undefined in an array', [undefined]],
    ['a BigInt', { n: 10n }],
    ['a lone surrogate in a key', { ['\ud800']: 1 }],
    ['a lone surrogate in a string', '\udc00x'],
    ['a function', { f: () => 1 }],
    ['a Date', new Date(0)],
  ])('should refuse %s with a typed error', (_label, value) => {
    let caught: unknown;
    try {
      canonicalJson(value);
    } catch (error) {
      caught = error;
    }
    expect(isReaError(caught)).toBe(true);
    expect((caught as { code: string }).code).toBe('invalid_request');
  });

  it('should refuse cycles', () => {
    const a: Record<string, unknown> = { x: 1 };
    a['self'] = a;
    expect(() => canonicalJson(a)).toThrow(/cycle/);
    const shared = { y: 2 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"y":2},"b":{"y":2}}');
  });

  it('should refuse cycles at any depth, and accept shared values below that depth', () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 200; i += 1) {
      const next: Record<string, unknown> = {};
      deep['n'] = next;
      deep = next;
    }
    const shared = { leaf: true };
    deep['a'] = [shared, shared];
    expect(canonicalJson(root)).toContain('"a":[{"leaf":true},{"leaf":true}]');
    deep['back'] = root['n'];
    let caught: unknown;
    try {
      canonicalJson(root);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'invalid_request', details: { reason: 'not-json', problem: 'cycle' } });
  });

  it('should refuse nesting deeper than the stack with a typed error', () => {
    const text = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    let caught: unknown;
    try {
      canonicalJson(JSON.parse(text));
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: 'invalid_request',
      details: { reason: 'not-json', problem: 'nesting too deep' },
    });
  });
});
