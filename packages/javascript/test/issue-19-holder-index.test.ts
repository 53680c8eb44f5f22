// The innermost bundled module of a site is found through an index built once per file, not by a
// scan of every module per fact. It answers what the definition says: of the spans holding the
// offset, the smallest, and of equal ones the first listed; spans nest, overlap (source-map ranges)
// or are empty.
import { describe, expect, it } from '@jest/globals';
import { holderIndex } from '../src/analysis/holders.js';

type Span = { start: number; end: number; name: string };

/** The definition, spelled out: every span that holds `offset`, smallest first, first listed on ties. */
function innermost(spans: Span[], offset: number): Span | null {
  const holding = spans.filter((s) => s.start <= offset && offset < s.end);
  holding.sort((a, b) => a.end - a.start - (b.end - b.start) || spans.indexOf(a) - spans.indexOf(b));
  return holding[0] ?? null;
}

describe('holderIndex', () => {
  it('should find nested, overlapping, tied and empty spans as the definition says', () => {
    const spans: Span[] = [
      { start: 0, end: 100, name: 'outer' },
      { start: 10, end: 20, name: 'inner' },
      { start: 10, end: 20, name: 'inner-twin' },
      { start: 15, end: 40, name: 'overlap' },
      { start: 50, end: 50, name: 'empty' },
      { start: 120, end: 130, name: 'apart' },
    ];
    const at = holderIndex(spans);
    const name = (offset: number) => at(offset)?.name ?? null;
    expect([5, 10, 19, 20, 39, 40, 50, 99, 100, 110, 120, 129, 130, -1].map(name)).toEqual([
      'outer',
      'inner',
      'inner',
      'overlap',
      'overlap',
      'outer',
      'outer',
      'outer',
      null,
      null,
      'apart',
      'apart',
      null,
      null,
    ]);
  });

  it('should agree with the definition on thousands of random spans', () => {
    // A fixed linear congruential sequence: the same spans on every run.
    let seed = 19;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const spans: Span[] = [];
    for (let i = 0; i < 3000; i += 1) {
      const start = next(100_000);
      spans.push({ start, end: start + next(i % 10 === 0 ? 20_000 : 300), name: `m${i}` });
    }
    const at = holderIndex(spans);
    for (let offset = -5; offset < 101_000; offset += 37) expect(at(offset)).toBe(innermost(spans, offset));
  });
});
