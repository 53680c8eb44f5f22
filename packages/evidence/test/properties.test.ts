import { describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import fc from 'fast-check';
import { exportBundle, importBundle, sealEvidence, selectAnalysisView } from '@rea/evidence';
import type { JsonValue, PageView } from '@rea/evidence';
import { withTempDir } from '@rea/test-helpers';
import { functionObservation, recordWith } from './records.js';

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

function allPages(record: ReturnType<typeof recordWith>, collection: string, limit: number): PageView[] {
  const pages: PageView[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const page = selectAnalysisView(record, { view: 'page', collection, offset, limit }) as PageView;
    pages.push(page);
    if (page.coverage.next_offset !== null) expect(page.coverage.next_offset).toBeGreaterThan(offset);
    offset = page.coverage.next_offset;
  }
  return pages;
}

// Text mixing ASCII, BMP letters and astral characters (surrogate pairs), well-formed throughout.
const text = fc
  .array(
    fc.oneof(fc.constantFrom('a', '\n', 'é', '中', '😀', '𝄞', '👩‍👩‍👧'), fc.string({ unit: 'binary', maxLength: 5 })),
    {
      maxLength: 80,
    },
  )
  .map((parts) => parts.join(''));

describe('view paging properties', () => {
  it('should visit every item exactly once, in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 200 }),
        fc.integer({ min: 1, max: 70 }),
        (items, limit) => {
          const record = recordWith({ outer: { rows: items as JsonValue[] } });
          const pages = allPages(record, 'outer.rows', limit);
          const seen = pages.flatMap((page) => page.items!);
          expect(JSON.stringify(seen)).toBe(JSON.stringify(items));
          expect(pages).toHaveLength(Math.max(1, Math.ceil(items.length / limit)));
          for (const page of pages) expect(page.items!.length).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('should never split a surrogate pair at a page boundary', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 9 }), (source, limit) => {
        const record = recordWith({ pseudocode: source });
        const pages = allPages(record, 'pseudocode', limit);
        expect(pages.map((page) => page.text!).join('')).toBe(source);
        for (const page of pages) {
          const body = page.text!;
          expect(body.isWellFormed()).toBe(true);
          if (body.length > 0) {
            expect(isLow(body.charCodeAt(0))).toBe(false);
            expect(isHigh(body.charCodeAt(body.length - 1))).toBe(false);
          }
          // A page exceeds its limit only to keep a lone pair whole at limit 1.
          expect(body.length).toBeLessThanOrEqual(Math.max(limit, 2));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('bundle properties', () => {
  it('should round-trip any records to identical ids', async () => {
    await withTempDir(async (dir) => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 }), async (results) => {
          const records = results.map((result, i) =>
            sealEvidence({ ...functionObservation(`0x${i}`), normalized_result: result as JsonValue }),
          );
          const path = join(dir, `bundle-${(run += 1)}.json`);
          await exportBundle(records, path);
          const imported = await importBundle(path);
          expect(imported.records.map((r) => r.evidence_id)).toEqual(records.map((r) => r.evidence_id));
        }),
        { numRuns: 40 },
      );
    });
  });
});
