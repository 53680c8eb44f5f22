/*
 * binary_overview counts import procedures page by page, with turns of the event loop between the
 * pages, instead of listing every procedure in one request: a program of 20,000 procedures must not
 * be materialised at once, and other work must run while it is counted.
 */
import { describe, expect, it } from '@jest/globals';
import { createNativeTools, paginate } from '@rea/native';
import type { PageRequest, ProcedureSummary } from '@rea/native';
import { executeTool } from '@rea/provider-kit';
import { contextFor, scriptedPort } from './scriptedPort.js';

const PROCEDURES = 20_000;
const overview = createNativeTools().find((t) => t.name === 'binary_overview')!;

/** Procedure `i` is an import when `i` is a multiple of 7. */
const procedures: ProcedureSummary[] = Array.from({ length: PROCEDURES }, (_, i) => ({
  address: `0x${(0x1000 + i * 16).toString(16)}`,
  name: i % 7 === 0 ? `import_${i}` : `sub_${i}`,
  size: 16,
  kind: i % 7 === 0 ? 'import' : 'function',
  source: i % 7 === 0 ? 'import' : 'symbol',
}));

describe('issue 15: binary_overview counts imports without listing every procedure at once', () => {
  it('should count every import in pages with turns of the event loop between them', async () => {
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns += 1;
      if (ticking) setImmediate(tick);
    };
    const requests: Array<{ turns: number; returned: number }> = [];
    const port = scriptedPort(['documents', 'procedures', 'segments', 'strings', 'names']);
    port.procedures = async (page: PageRequest) => {
      const found = paginate(procedures, page, (p) => p.name);
      requests.push({ turns, returned: found.items.length });
      return found;
    };
    setImmediate(tick);
    const result = await executeTool(overview, { sample: 5 }, contextFor(port)).finally(() => {
      ticking = false;
    });
    if (result.kind !== 'evidence') throw new Error(`expected evidence, got ${result.kind}`);
    const normalized = (result.record as { normalized_result: Record<string, unknown> }).normalized_result;
    expect(normalized['procedure_count']).toBe(PROCEDURES);
    expect(normalized['import_count']).toBe(Math.ceil(PROCEDURES / 7));
    // No request listed every procedure, and the event loop turned between the first and the last.
    expect(Math.max(...requests.map((r) => r.returned))).toBeLessThan(PROCEDURES);
    expect(requests.at(-1)!.turns).toBeGreaterThan(requests[0]!.turns);
  }, 60_000);
});
