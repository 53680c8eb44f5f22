// The last unsliced loops of comparison, extraction and directory inventories are a sort and path
// maps. The sort they now use is stable, orders like Array.prototype.sort, and yields a checkpoint
// after a bounded number of comparisons, so a driver can turn the event loop; comparing two large
// inventories takes turns of the loop (a probe rescheduling itself with setImmediate runs meanwhile),
// gives the same comparison, and a cancel meanwhile ends in cancelled.
import { describe, expect, it } from '@jest/globals';
import { isReaError } from '@rea/evidence';
import { turnProbe } from '@rea/test-helpers';
import { compareInventories } from '../src/compare.js';
import { CHECK_EVERY } from '../src/layout/cooperative.js';
import { byPath, codeUnitOrder, sortInSlices } from '../src/sortInSlices.js';
import type { ArtifactEntry, ArtifactInventory } from '../src/schemas.js';

/** Drives `work` to its end; returns its value and the most comparisons `count()` saw between two yields. */
function drive<T>(work: Generator<string | undefined, T, void>, count: () => number): { value: T; most: number } {
  let most = 0;
  let last = count();
  for (;;) {
    const step = work.next();
    most = Math.max(most, count() - last);
    last = count();
    if (step.done) return { value: step.value, most };
  }
}

/** A deterministic shuffle. */
function shuffled<T>(items: T[], seed = 7): T[] {
  const out = items.slice();
  let state = seed;
  for (let i = out.length - 1; i > 0; i -= 1) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function entry(path: string, sha: string): ArtifactEntry {
  return {
    path,
    kind: 'file',
    size: 1,
    compressed_size: null,
    mode: null,
    symlink_target: null,
    unpacked: false,
    sha256: sha.repeat(64),
    integrity: 'verified',
    nested_format: null,
  } as unknown as ArtifactEntry;
}

function inventory(entries: ArtifactEntry[]): ArtifactInventory {
  return { entries, integrity_contradictions: [] } as unknown as ArtifactInventory;
}

describe('issue 15: sorting and comparing in slices', () => {
  it('should sort stably like Array.prototype.sort, with bounded work between checkpoints', () => {
    for (const size of [0, 1, 31, 33, 1000, 20_000]) {
      // Few distinct keys: stability shows in the order of equal keys.
      const items = shuffled(
        Array.from({ length: size }, (_, i) => ({ path: `k${i % 97}\u00e9${i % 3 ? '' : 'z'}`, i })),
      );
      let comparisons = 0;
      const counted = (a: { path: string }, b: { path: string }): number => {
        comparisons += 1;
        return byPath(a, b);
      };
      const { value, most } = drive(sortInSlices(items, counted), () => comparisons);
      expect(value).toEqual(items.slice().sort(byPath));
      expect(most).toBeLessThanOrEqual(2 * CHECK_EVERY);
      // The input is left as it was.
      expect(items).toEqual(
        shuffled(Array.from({ length: size }, (_, i) => ({ path: `k${i % 97}\u00e9${i % 3 ? '' : 'z'}`, i }))),
      );
    }
    const names = shuffled(Array.from({ length: 20_000 }, (_, i) => `name-${i.toString(36)}-\u{1F600}${i % 5}`));
    expect(drive(sortInSlices(names, codeUnitOrder), () => 0).value).toEqual(names.slice().sort());
  });

  const SIZE = 40_000;
  const left = inventory(shuffled(Array.from({ length: SIZE }, (_, i) => entry(`dir/${i}`, i % 10 === 0 ? 'b' : 'a'))));
  const right = inventory(
    shuffled(
      Array.from({ length: SIZE }, (_, i) => entry(`dir/${i + SIZE / 2}`, 'a')),
      11,
    ),
  );
  const sides = [
    { evidenceId: 'ev_left', inventory: left },
    { evidenceId: 'ev_right', inventory: right },
  ] as const;

  it('should compare large inventories in path order with turns of the event loop', async () => {
    const probe = turnProbe();
    let comparison;
    try {
      comparison = await compareInventories(sides[0], sides[1]);
    } finally {
      probe.stop();
    }
    expect(probe.turns()).toBeGreaterThan(1);
    const paths = (list: Array<{ path: string }>) => list.map((item) => item.path);
    const sorted = (list: string[]) => list.slice().sort();
    const numbers = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `dir/${from + i}`);
    expect(paths(comparison.removed)).toEqual(sorted(numbers(0, SIZE / 2)));
    expect(paths(comparison.added)).toEqual(sorted(numbers(SIZE, SIZE + SIZE / 2)));
    const overlap = numbers(SIZE / 2, SIZE);
    expect(paths(comparison.changed)).toEqual(sorted(overlap.filter((p) => Number(p.slice(4)) % 10 === 0)));
    expect(paths(comparison.unchanged)).toEqual(sorted(overlap.filter((p) => Number(p.slice(4)) % 10 !== 0)));
  });

  it('should end in cancelled when cancelled while it compares', async () => {
    const controller = new AbortController();
    setImmediate(() => setImmediate(() => controller.abort()));
    const outcome = await compareInventories(sides[0], sides[1], controller.signal).then(
      () => 'completed',
      (error: unknown) => (isReaError(error) ? error.code : String(error)),
    );
    expect(outcome).toBe('cancelled');
  });
});
