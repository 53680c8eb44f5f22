import { describe, expect, it } from '@jest/globals';
import {
  canonicalJson,
  canonicalJsonAsync,
  canonicalSha256,
  canonicalSha256Async,
  sealEvidence,
  sealEvidenceAsync,
} from '@rea/evidence';
import type { UnsignedEvidence } from '@rea/evidence';

const table = Array.from({ length: 20_000 }, (_, i) => ({
  name: `symbol_${i}\u00e9`,
  address: `0x${(0x400000 + i).toString(16)}`,
  size: i % 17,
  tags: i % 5 === 0 ? ['a', { z: null, y: [i] }] : [],
}));

const values: unknown[] = [
  0,
  'text',
  null,
  [],
  {},
  [1, [2, { b: 1, a: [3, '\u2028', { z: false }] }]],
  { table, nested: { deeper: { long: Array.from({ length: 700 }, (_, i) => (i % 3 ? i : [i, `s${i}`])) } } },
  Array.from({ length: 900 }, (_, i) => (i % 2 ? { x: i } : Array.from({ length: 300 }, (_, k) => k + i))),
];

function observation(result: unknown): UnsignedEvidence {
  return {
    operation: 'inspect_binary_layout',
    subject: { format: 'elf', sha256: '0'.repeat(64), size: 1 },
    provider: { id: 'artifact', name: 'artifact', version: '1.0.0' },
    analysis_profile: null,
    parameters: {},
    normalized_result: result as never,
    raw_result: null,
    confidence: 'observed',
    limitations: [],
    coverage: { status: 'complete', reasons: [] },
    locations: [],
    evidence_links: [],
  } as UnsignedEvidence;
}

describe('issue 15: hashing and sealing large records without holding the event loop', () => {
  it.each(values.map((value, i) => [i, value]))(
    'should give the synchronous digest for value %i',
    async (_i, value) => {
      await expect(canonicalSha256Async(value)).resolves.toBe(canonicalSha256(value));
    },
  );

  it('should seal the same record as sealEvidence', async () => {
    const sync = sealEvidence(observation({ table }));
    await expect(sealEvidenceAsync(observation({ table }))).resolves.toEqual(sync);
  });

  it('should refuse a value JSON cannot carry with the path from the root', async () => {
    const value = { table: [...table.slice(0, 300), { name: undefined }] };
    await expect(canonicalSha256Async(value)).rejects.toMatchObject({
      code: 'invalid_request',
      details: { reason: 'not-json', path: '$.table[300].name' },
    });
  });

  it('should give the event loop turns while it hashes and stop with cancelled when aborted meanwhile', async () => {
    const big = { table: Array.from({ length: 8 }, () => table) };
    const controller = new AbortController();
    let turns = 0;
    const tick = (): void => {
      turns += 1;
      if (turns === 2) controller.abort();
      else setImmediate(tick);
    };
    setImmediate(tick);
    await expect(sealEvidenceAsync(observation(big), controller.signal)).rejects.toMatchObject({
      code: 'cancelled',
      details: { phase: 'sealing' },
    });
    expect(turns).toBe(2);
  });

  it.each(values.map((value, i) => [i, value]))('should give the synchronous text for value %i', async (_i, value) => {
    await expect(canonicalJsonAsync(value)).resolves.toBe(canonicalJson(value));
  });

  it('should keep characters whole where a batch of multi-byte items ends', async () => {
    // Strings longer than the writer's segments, of four-byte characters: its chunks of a batch end
    // between two of them, so the byte held back at the end of a chunk is the last byte of a character.
    const items = Array.from({ length: 40 }, (_, i) => `${i}${'\u{1F600}'.repeat(3_000)}`);
    const text = await canonicalJsonAsync({ items });
    expect(text).toBe(canonicalJson({ items }));
    expect(JSON.parse(text)).toEqual({ items });
  });

  it('should write the text with turns of the event loop and stop with cancelled in the given phase', async () => {
    const big = { table: Array.from({ length: 8 }, () => table) };
    const controller = new AbortController();
    let turns = 0;
    const tick = (): void => {
      turns += 1;
      if (turns === 2) controller.abort();
      else setImmediate(tick);
    };
    setImmediate(tick);
    await expect(canonicalJsonAsync(big, { signal: controller.signal, phase: 'publication' })).rejects.toMatchObject({
      code: 'cancelled',
      details: { phase: 'publication' },
    });
    expect(turns).toBe(2);
  });
});
