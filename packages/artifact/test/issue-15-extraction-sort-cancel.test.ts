// A cancel that arrives while an extraction sorts its extracted files (its last step, after every
// file is written) ends the extraction as `cancelled` and leaves nothing: no output directory, no
// staging directory, nothing in the parent. The sort is the real one; the test only observes it
// (through a module mock that wraps it) to cancel once it has started and before it has finished.
import { describe, expect, it, jest } from '@jest/globals';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withTempDir } from '@rea/test-helpers';
import * as real from '../src/sortInSlices.js';
import { buildZip } from './helpers/zipWriter.js';

const controller = new AbortController();
const sort = { started: 0, finished: 0, checkpointsAfterCancel: 0 };

jest.unstable_mockModule('../src/sortInSlices.js', () => ({
  ...real,
  // The real sort, cancelled at its first checkpoint when the test asks for it.
  *sortInSlices<T>(items: readonly T[], compare: (a: T, b: T) => number) {
    sort.started += 1;
    const inner = real.sortInSlices(items, compare);
    for (;;) {
      const step = inner.next();
      if (step.done) {
        sort.finished += 1;
        return step.value;
      }
      if (controller.signal.aborted) sort.checkpointsAfterCancel += 1;
      else if (cancelling) controller.abort();
      yield step.value;
    }
  },
}));
let cancelling = false;
const { extract } = await import('../src/extract/extract.js');

/** 3,000 files listed in reverse path order, so that the final sort has real work to do. */
const zip = buildZip(
  Array.from({ length: 3000 }, (_, i) => ({
    name: `d${i % 7}/f${String(2999 - i).padStart(4, '0')}.txt`,
    data: Buffer.from(`${i}`),
  })).reverse(),
);

describe("issue 15: a cancel during extraction's final sort", () => {
  it('should end the extraction as cancelled and leave nothing behind', async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, 'a.zip'), zip);
      const parent = join(tmp, 'out');
      mkdirSync(parent);
      // Uncancelled, the same archive extracts every file, in path order.
      const whole = await extract(join(tmp, 'a.zip'), { parentDirectory: tmp });
      expect(whole.result.files).toHaveLength(3000);
      expect(whole.result.files.map((f) => f.path)).toEqual(
        whole.result.files
          .map((f) => f.path)
          .slice()
          .sort(),
      );
      expect(sort).toMatchObject({ started: 1, finished: 1 });

      cancelling = true;
      const outcome = await extract(join(tmp, 'a.zip'), { parentDirectory: parent, signal: controller.signal }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(outcome).toMatchObject({ code: 'cancelled', details: { phase: 'extraction' } });
      // The sort had started (every file was written) and was stopped before its end.
      expect(sort).toMatchObject({ started: 2, finished: 1, checkpointsAfterCancel: 0 });
      expect(readdirSync(parent)).toEqual([]);
    });
  }, 120_000);
});
