/*
 * The open sorts procedure starts and sweep anchors (hundreds of thousands on a large library) in runs
 * merged with turns of the event loop, not in one native sort of the whole list: the order is exactly
 * that of a typed array's sort, duplicates kept, and a cancel at a turn ends the sort as `cancelled`.
 * A pacer whose slice is 0 ms turns at every checkpoint.
 */
import { describe, expect, it } from '@jest/globals';
import { turnProbe } from '@rea/test-helpers';
import { Pacer } from '../src/analysis/pace.js';
import { sortedNumbersPaced } from '../src/analysis/sortPaced.js';

/** Deterministic pseudo-random addresses, some repeated, some above 2^32. */
function addresses(n: number, seed: number): number[] {
  let x = seed;
  const out: number[] = [];
  for (let i = 0; i < n; i += 1) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out.push(i % 7 === 0 && i > 0 ? out[i - 1]! : x % 3 === 0 ? x * 16 + 0x1_0000_0000 : x);
  }
  return out;
}

/** Whether two arrays hold the same numbers in the same order. */
const same = (a: Float64Array, b: Float64Array): boolean => Buffer.from(a.buffer).equals(Buffer.from(b.buffer));

describe('issue 15: the open sorts addresses in runs with turns of the event loop', () => {
  it.each([0, 1, 5, 32_767, 32_768, 32_769, 100_003])(
    'should sort %i numbers as a typed array sorts them',
    async (n) => {
      const values = addresses(n, n + 1);
      const pacer = new Pacer(new AbortController().signal);
      expect(same(await sortedNumbersPaced(values, pacer, 'discovery'), Float64Array.from(values).sort())).toBe(true);
      const unique = new Set(values);
      expect(same(await sortedNumbersPaced(unique, pacer, 'discovery'), Float64Array.from(unique).sort())).toBe(true);
    },
  );

  it('should take turns of the event loop while it sorts a long list', async () => {
    const values = addresses(200_000, 7);
    const probe = turnProbe();
    try {
      const sorted = await sortedNumbersPaced(values, new Pacer(new AbortController().signal, 0), 'discovery');
      expect(same(sorted, Float64Array.from(values).sort())).toBe(true);
      // A turn every 2,048 values copied, every run of 32,768 sorted and every 2,048 values merged.
      expect(probe.turns()).toBeGreaterThan((3 * values.length) / 2048);
    } finally {
      probe.stop();
    }
  });

  it('should end as cancelled at a turn after a cancel', async () => {
    const controller = new AbortController();
    let turns = 0;
    const tick = (): void => {
      turns += 1;
      if (turns === 100) controller.abort();
      else setImmediate(tick);
    };
    setImmediate(tick);
    await expect(
      sortedNumbersPaced(addresses(400_000, 3), new Pacer(controller.signal, 0), 'discovery'),
    ).rejects.toMatchObject({
      code: 'cancelled',
      details: { phase: 'discovery' },
    });
  });
});
