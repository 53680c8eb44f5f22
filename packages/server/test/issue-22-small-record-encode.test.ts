// A record a tool sealed in this process and that is small is encoded without measuring it first (its
// size is known from sealing): its text must still be its canonical JSON, as for a large record, which
// is written with turns of the event loop. A larger sealed record is measured by counting its written
// text rather than by walking it: the count must agree with the walk to the byte, and the budget must
// still be kept exactly.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { canonicalJson, sealEvidence, sealedByteSize } from '@rea/evidence';
import { ENVELOPE_RESERVE_BYTES, RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { measureResponse } from '@rea/server';
import { costOfCanonicalTextAsync } from '../src/budget.js';
import { encodeSuccess } from '../src/respond.js';
import { connectInMemory, unitObservation, unitToolsProvider } from './unitTools.js';

/** Rows with what escaping changes: quotes, backslashes, control characters, non-ASCII, astral. */
const rows = (n: number) =>
  Array.from({ length: n }, (_, i) => `row ${i}: "quoted" \\ back\tslash\n é 雪 😀 \u0001 ${'x'.repeat(i % 50)}`);

const observation = (count: number) => unitObservation({ rows: rows(count) }, { parameters: { count } });

const rowsTool = defineTool({
  name: 'escaped_rows',
  title: 'Escaped rows',
  description: 'Test tool: Evidence of `count` rows of text that JSON escapes.',
  produces: 'evidence',
  input: z.strictObject({ count: z.number().int().min(0).max(100_000).describe('How many rows.') }),
  result: z.strictObject({ rows: z.array(z.string()) }),
  examples: [{ input: { count: 1 } }],
  effects: RECORDS_EVIDENCE,
  run: async ({ count }) => observation(count),
});

describe('issue 22: small sealed records are encoded at once', () => {
  it('knows the canonical size of a record sealed here, and of nothing else', () => {
    const record = sealEvidence({ ...observation(40), operation: 'escaped_rows' });
    expect(sealedByteSize(record)).toBe(Buffer.byteLength(canonicalJson(record)));
    // A copy is a stranger, and so is the record once a member is replaced.
    expect(sealedByteSize(structuredClone(record))).toBeNull();
    expect(sealedByteSize({ ...record })).toBeNull();
    (record as { confidence: string }).confidence = 'inferred';
    expect(sealedByteSize(record)).toBeNull();
    expect(sealedByteSize(null)).toBeNull();
    expect(sealedByteSize('text')).toBeNull();
  });

  it('answers a small and a large record with their canonical JSON as text', async () => {
    const client = await connectInMemory([unitToolsProvider([rowsTool])]);
    try {
      // About 2 KB, and about 1 MB (above the size encoded at once).
      for (const count of [20, 12_000]) {
        const result = await client.callTool({ name: 'escaped_rows', arguments: { count } });
        expect(result.isError).not.toBe(true);
        const text = (result.content as Array<{ type: string; text?: string }>)[0]!.text!;
        expect(text).toBe(canonicalJson(result.structuredContent));
        expect(JSON.parse(text)).toEqual(result.structuredContent);
        expect((result.structuredContent as { normalized_result: { rows: string[] } }).normalized_result.rows).toEqual(
          rows(count),
        );
      }
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('issue 22: larger sealed records are measured from their text', () => {
  const maxFor = (budget: number) => budget + ENVELOPE_RESERVE_BYTES;

  it('counts the cost of a canonical text exactly as the walk of its value does', async () => {
    const record = sealEvidence({ ...observation(12_000), operation: 'escaped_rows' });
    const known = sealedByteSize(record)!;
    expect(known).toBeGreaterThan(768 * 1024);
    const walked = measureResponse(record, 1 << 30, true);
    const counted = await costOfCanonicalTextAsync(canonicalJson(record), known, 1 << 30, true, undefined);
    expect(counted).toEqual(walked);
    // Only text: the structured content is left out of the total, as the walk leaves it out.
    expect(await costOfCanonicalTextAsync(canonicalJson(record), known, 1 << 30, false, undefined)).toEqual(
      measureResponse(record, 1 << 30, false),
    );
  });

  it('answers a record that fits exactly, and refuses one byte less with what it would have cost', async () => {
    const record = sealEvidence({ ...observation(12_000), operation: 'escaped_rows' });
    const { total } = measureResponse(record, 1 << 30, true);
    const outcome = { kind: 'evidence' as const, record };
    const fits = await encodeSuccess('escaped_rows', outcome, maxFor(total));
    expect(fits.fits).toBe(true);
    if (fits.fits) expect(fits.result.content[0]).toEqual({ type: 'text', text: canonicalJson(record) });
    const refused = await encodeSuccess('escaped_rows', outcome, maxFor(total - 1));
    expect(refused.fits).toBe(false);
    if (!refused.fits) {
      expect(refused.refusal.code).toBe('resource_constraint');
      expect(refused.refusal.details).toMatchObject({ resource: 'transport', limit: total - 1, observed: total });
    }
  });

  it('refuses at once a record whose canonical size alone cannot fit twice in the budget', async () => {
    const record = sealEvidence({ ...observation(12_000), operation: 'escaped_rows' });
    const known = sealedByteSize(record)!;
    const refused = await encodeSuccess('escaped_rows', { kind: 'evidence', record }, maxFor(2 * known + 1));
    expect(refused.fits).toBe(false);
    if (!refused.fits) expect(refused.refusal.details).toMatchObject({ limit: 2 * known + 1, observed: 2 * known + 2 });
  });
});
