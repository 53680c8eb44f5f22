import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import canonicalize from 'canonicalize';
import {
  canonicalByteLength,
  canonicalJson,
  canonicalSha256,
  isReaError,
  writeCanonicalBytes,
  writeCanonicalJson,
} from '@rea/evidence';

// An independent reference: members sorted by the default (UTF-16 code unit) sort, every leaf and
// key written by V8's JSON.stringify, whose escapes and number form are the ones RFC 8785 adopts.
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const node = value as Record<string, unknown>;
    const members = Object.keys(node)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${reference(node[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The chunks the writer hands over, copied (the writer reuses its buffer). */
function chunksOf(value: unknown): Buffer[] {
  const chunks: Buffer[] = [];
  writeCanonicalBytes(value, (bytes) => chunks.push(Buffer.from(bytes)));
  return chunks;
}

function bytesOf(value: unknown): Buffer {
  return Buffer.concat(chunksOf(value));
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function refusalOf(value: unknown): { code: string; details: Record<string, unknown> } {
  try {
    writeCanonicalBytes(value, () => undefined);
  } catch (error) {
    expect(isReaError(error)).toBe(true);
    return error as { code: string; details: Record<string, unknown> };
  }
  throw new Error('the value was not refused');
}

// Text that crosses every encoder branch: ASCII, escapes, two- and three-byte characters, astral
// characters (surrogate pairs), U+2028 and DEL (written as themselves).
const piece = fc.constantFrom(
  'a',
  'Z',
  '"',
  '\\',
  '\n',
  '\u0000',
  '\u001f',
  '\u007f',
  'é',
  'ß',
  '中',
  '\u2028',
  '😀',
  '𝄞',
);
const text = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''));

describe('writeCanonicalBytes', () => {
  it('should write the bytes of an independent reference for arbitrary JSON with any Unicode', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }), (value) => {
        const actual = bytesOf(value);
        expect(actual.equals(Buffer.from(reference(value), 'utf8'))).toBe(true);
        expect(actual.equals(Buffer.from(canonicalize(value)!, 'utf8'))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('should agree with the reference on objects built from escapes and astral characters', () => {
    fc.assert(
      fc.property(fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 4 }))), (value) => {
        expect(bytesOf(value).toString('utf8')).toBe(reference(value));
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 300 },
    );
  });

  it('should write every code unit below 0x80 and the characters around the escapes like JSON.stringify', () => {
    for (let unit = 0; unit < 0x80; unit += 1) {
      const value = String.fromCharCode(unit);
      expect(bytesOf(value).toString('utf8')).toBe(JSON.stringify(value));
    }
    // RFC 8785 3.2.2.2: lowercase hex, and nothing above the controls is escaped.
    expect(bytesOf('\u001f\u007f\u2028\u2029').toString('utf8')).toBe('"\\u001f\u007f\u2028\u2029"');
    expect(bytesOf('\u00e9\u4e2d\ud83d\ude00').toString('hex')).toBe('22c3a9e4b8adf09f988022');
  });

  it('should write numbers in the ECMAScript form, including the edges of the integer fast path', () => {
    const edges = [0, -0, 9, 10, -9, -10, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 53, 1e21, 1e-7];
    for (const n of edges) expect(bytesOf(n).toString('utf8')).toBe(JSON.stringify(n));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer(),
          fc.integer({ min: -(2 ** 31) - 100, max: -(2 ** 31) + 100 }),
          fc.maxSafeInteger(),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
        ),
        (n) => {
          expect(bytesOf([n]).toString('utf8')).toBe(`[${JSON.stringify(n)}]`);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('should hand over chunks of bounded size that never split a character', () => {
    // Long strings whose segments end next to astral characters, long keys, and enough values to
    // fill many chunks.
    const long = fc
      .tuple(fc.integer({ min: 4000, max: 13000 }), fc.array(piece, { minLength: 1, maxLength: 6 }))
      .map(([repeat, tail]) => `${'a'.repeat(repeat)}${tail.join('')}`.repeat(2));
    fc.assert(
      fc.property(fc.array(fc.oneof(long, text), { minLength: 1, maxLength: 40 }), long, (items, key) => {
        const value = { [key]: items, rows: items.map((item, i) => ({ i, item })) };
        const chunks = chunksOf(value);
        for (const chunk of chunks) {
          expect(chunk.length).toBeLessThanOrEqual(96 * 1024);
          expect(() => strictUtf8.decode(chunk)).not.toThrow();
        }
        expect(Buffer.concat(chunks).toString('utf8')).toBe(reference(value));
        const texts: string[] = [];
        writeCanonicalJson(value, (chunk) => texts.push(chunk));
        expect(texts.join('')).toBe(reference(value));
        expect(canonicalByteLength(value)).toBe(Buffer.concat(chunks).length);
      }),
      { numRuns: 60 },
    );
  });

  it('should refuse a lone surrogate anywhere in a string, including at segment boundaries', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(0, 1, 4095, 4096, 4097, 8191, 8192),
        fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff'),
        fc.constantFrom('', 'a', '😀', '\ud800'),
        (at, lone, after) => {
          const value = { k: [`${'x'.repeat(at)}${lone}${after === lone ? '' : after}`] };
          // A high surrogate followed by a low one would be a pair, not a lone surrogate.
          fc.pre(!(lone <= '\udbff' && after !== '' && after.charCodeAt(0) >= 0xdc00 && after.charCodeAt(0) <= 0xdfff));
          expect(refusalOf(value)).toMatchObject({
            code: 'invalid_request',
            details: { reason: 'not-json', path: '$.k[0]', problem: 'string contains a lone surrogate' },
          });
        },
      ),
    );
    expect(refusalOf({ a: { ['b\udc00']: 1 } })).toMatchObject({
      details: { path: '$.a', problem: 'a key contains a lone surrogate' },
    });
    // The two halves split between two segments still form one character.
    const split = `${'x'.repeat(4095)}😀`;
    expect(bytesOf(split).toString('utf8')).toBe(JSON.stringify(split));
  });

  it('should name the path of a refused value', () => {
    expect(refusalOf({ a: [1, { b: undefined }] }).details['path']).toBe('$.a[1].b');
    expect(refusalOf([0, [1, 2, NaN]]).details).toMatchObject({ path: '$[1][2]', problem: 'NaN is not a JSON number' });
    expect(refusalOf(Symbol('s')).details).toMatchObject({ path: '$', problem: 'symbol' });
    expect(refusalOf({ m: new Map() }).details).toMatchObject({ path: '$.m', problem: 'Map is not a plain object' });
  });

  it('should serialize correctly after a refusal, and while a getter or a sink serializes another value', () => {
    const cyclic: Record<string, unknown> = {};
    let deep = cyclic;
    for (let i = 0; i < 100; i += 1) deep = deep['n'] = {};
    deep['back'] = cyclic;
    expect(refusalOf(cyclic).details['problem']).toBe('cycle');
    const table = [{ b: 1, a: 2 }, { a: 3, b: 4 }, { c: 'é' }];
    expect(canonicalJson(table)).toBe(reference(table));

    const inner = { z: ['😀', 1.5], a: null };
    const outer = { y: 1 } as Record<string, unknown>;
    Object.defineProperty(outer, 'x', {
      enumerable: true,
      get: () => canonicalJson(inner),
    });
    expect(canonicalJson(outer)).toBe(`{"x":${JSON.stringify(reference(inner))},"y":1}`);

    const hash = createHash('sha256');
    let nested = '';
    writeCanonicalBytes(table, (bytes) => {
      nested = canonicalSha256(inner);
      hash.update(bytes);
    });
    expect(hash.digest('hex')).toBe(createHash('sha256').update(reference(table)).digest('hex'));
    expect(nested).toBe(createHash('sha256').update(reference(inner)).digest('hex'));
  });

  it('should ignore inherited enumerable keys even when Object.prototype has one', () => {
    const rows = [
      { b: 1, a: 2 },
      { b: 3, a: 4 },
    ];
    Object.defineProperty(Object.prototype, 'polluted', { value: 1, enumerable: true, configurable: true });
    try {
      expect(canonicalJson(rows)).toBe('[{"a":2,"b":1},{"a":4,"b":3}]');
    } finally {
      delete (Object.prototype as Record<string, unknown>)['polluted'];
    }
    expect(canonicalJson(rows)).toBe('[{"a":2,"b":1},{"a":4,"b":3}]');
  });

  it('should write tables whose rows share first keys but differ in shape', () => {
    const keys = fc.constantFrom('id', 'b', 'a', 'z', 'ä', '10', '2', '😀', '\u0000');
    fc.assert(
      fc.property(fc.array(fc.dictionary(keys, fc.integer(), { minKeys: 1 }), { maxLength: 80 }), (rows) => {
        const table = rows.map((row) => ({ id: 0, ...row }));
        expect(bytesOf(table).toString('utf8')).toBe(reference(table));
      }),
      { numRuns: 300 },
    );
  });

  it('should stay exact across calls while its remembered shapes are evicted', () => {
    // Over 4,096 distinct first keys and over 1 MiB of member heads make the shape memory start over.
    for (let i = 0; i < 5000; i += 1) {
      const value = { [`k${i}`]: i, a: [i], [`z${i % 3}`]: null };
      expect(canonicalJson(value)).toBe(reference(value));
    }
    const long = (n: number): string => `${String(n)}${'é'.repeat(200_000)}`;
    for (let i = 0; i < 4; i += 1) {
      const value = { [long(i)]: i, [long(i + 1)]: [long(i)], b: { [long(i)]: true } };
      expect(bytesOf(value).equals(Buffer.from(reference(value), 'utf8'))).toBe(true);
    }
    const rows = [
      { b: 1, a: 2 },
      { a: 3, b: 4 },
    ];
    expect(canonicalJson(rows)).toBe('[{"a":2,"b":1},{"a":3,"b":4}]');
  });

  it('should pass an error of the sink through unchanged and serialize the next value exactly', () => {
    const big = Array.from({ length: 20_000 }, (_, i) => ({ i, text: `row ${i} é` }));
    const failure = new Error('disk full');
    let calls = 0;
    expect(() =>
      writeCanonicalBytes(big, () => {
        calls += 1;
        if (calls === 2) throw failure;
      }),
    ).toThrow(failure);
    expect(calls).toBe(2);
    expect(bytesOf(big).equals(Buffer.from(reference(big), 'utf8'))).toBe(true);
  });
});
