import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { inspectBinaryLayoutTool, parseBinaryLayout, parseBinaryLayoutFileAsync } from '@rea/artifact';
import { executeTool } from '@rea/provider-kit';
import type { ToolContext } from '@rea/provider-kit';
import { quietToolContext, withTempDir } from '@rea/test-helpers';
import { bigElf } from '../helpers/bigElf.js';

const SYMBOLS = 300_000;
const elf = bigElf(SYMBOLS);

/** A signal that reads as aborted from its `after`-th look on: a cancel at a chosen point of the work. */
function abortsAfter(after: number): AbortSignal & { looks: () => number } {
  let looks = 0;
  return {
    get aborted() {
      looks += 1;
      return looks > after;
    },
    looks: () => looks,
  } as unknown as AbortSignal & { looks: () => number };
}

function retainingContext(retained: EvidenceRecord[], overrides: Partial<ToolContext> = {}): ToolContext {
  return quietToolContext({
    ledger: {
      resolve: () => {
        throw new Error('unused');
      },
      get: (id: string) => retained.find((r) => r.evidence_id === id),
      retain: (record: EvidenceRecord) => retained.push(record),
    } as unknown as ToolContext['ledger'],
    ...overrides,
  });
}

async function outcomeOf(promise: Promise<unknown>): Promise<{ code: string; phase?: unknown } | 'evidence'> {
  try {
    await promise;
    return 'evidence';
  } catch (error) {
    if (!isReaError(error)) throw error;
    return { code: error.code, phase: error.details['phase'] };
  }
}

describe('issue 15: inspect_binary_layout under cancellation', () => {
  it('should parse the generated binary completely (the cancel points below are inside real work)', () => {
    const layout = parseBinaryLayout(elf);
    expect(layout.symbols).toHaveLength(SYMBOLS);
    expect(layout.symbols[SYMBOLS - 1]).toMatchObject({ name: `function_${SYMBOLS - 1}`, kind: 'function' });
  });

  it.each([1, 8, 40, 200, 600])(
    'should end in cancelled with nothing retained when cancelled at look %i of the signal',
    async (after) => {
      await withTempDir(async (tmp) => {
        const path = join(tmp, 'big.elf');
        writeFileSync(path, elf);
        const retained: EvidenceRecord[] = [];
        const ctx = retainingContext(retained, { signal: abortsAfter(after) });
        const outcome = await outcomeOf(executeTool(inspectBinaryLayoutTool, { path, detail: 'summary' }, ctx));
        expect(outcome).toMatchObject({ code: 'cancelled' });
        expect(retained).toEqual([]);
      });
    },
  );

  it('should give the event loop turns while it parses, so that a cancel sent meanwhile takes effect', async () => {
    await withTempDir(async (tmp) => {
      const path = join(tmp, 'big.elf');
      writeFileSync(path, elf);
      const controller = new AbortController();
      const retained: EvidenceRecord[] = [];
      let turns = 0;
      let counting = false;
      const count = (): void => {
        if (!counting) return;
        turns += 1;
        setImmediate(count);
      };
      const ctx = retainingContext(retained, {
        progress: {
          report: (message: string) => {
            // Once parsing starts, count turns of the event loop; the cancel arrives on the fifth.
            if (!message.startsWith('parsing')) return;
            counting = true;
            setImmediate(count);
            let wait = 5;
            const cancelLater = (): void => {
              wait -= 1;
              if (wait === 0) controller.abort();
              else setImmediate(cancelLater);
            };
            setImmediate(cancelLater);
          },
        },
        signal: controller.signal,
      });
      // The probe stops however the call ends (a timed-out test must not leave it running).
      const outcome = await outcomeOf(executeTool(inspectBinaryLayoutTool, { path, detail: 'summary' }, ctx)).finally(
        () => {
          counting = false;
        },
      );
      expect(outcome).toMatchObject({ code: 'cancelled' });
      expect(turns).toBeGreaterThanOrEqual(5);
      expect(retained).toEqual([]);
    });
  });

  it('should stop parseBinaryLayoutFileAsync at an abort and give the same layout when not aborted', async () => {
    await withTempDir(async (tmp) => {
      const path = join(tmp, 'big.elf');
      writeFileSync(path, elf);
      await expect(parseBinaryLayoutFileAsync(path, { signal: abortsAfter(100) })).rejects.toMatchObject({
        code: 'cancelled',
      });
      const layout = await parseBinaryLayoutFileAsync(path);
      expect(layout.symbols).toHaveLength(SYMBOLS);
      expect(layout.symbols[12_345]).toEqual(parseBinaryLayout(elf).symbols[12_345]);
    });
  });
});
