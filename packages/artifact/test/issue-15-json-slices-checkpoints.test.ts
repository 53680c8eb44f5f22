// An ASAR header is parsed as work for the cooperative driver, which can give the event loop a turn only
// at a checkpoint. A large object made of members each too small for a checkpoint of its own (a
// directory of a few hundred files is some kilobytes of JSON, parsed whole) still gets one per member:
// without them, a header of tens of such directories was scanned and parsed in one stretch.
import { describe, expect, it } from '@jest/globals';
import { parseJsonWork } from '../src/engine/jsonSlices.js';

/** Runs `work` to the end; returns its value and how many checkpoints (undefined yields) it made. */
function drive(work: Generator<string | undefined, unknown, void>): { value: unknown; checkpoints: number } {
  let checkpoints = 0;
  for (;;) {
    const step = work.next();
    if (step.done) return { value: step.value, checkpoints };
    if (step.value === undefined) checkpoints += 1;
  }
}

describe('issue 15: the sliced JSON parser checkpoints between the members of a large container', () => {
  it('should make a checkpoint per member of a large object whose members are small, and parse as JSON.parse', () => {
    const files: Record<string, unknown> = {};
    for (let d = 0; d < 60; d += 1) {
      const inner: Record<string, unknown> = {};
      for (let f = 0; f < 500; f += 1) inner[`f${f}.js`] = { size: 1, offset: String(f) };
      files[`d${d}`] = { files: inner };
    }
    const text = JSON.stringify({ files });
    // Each directory is below the 64 KiB a span must exceed to be sliced; together they are over 1 MB.
    expect(JSON.stringify(files['d0']).length).toBeLessThan(64 * 1024);
    expect(text.length).toBeGreaterThan(1_000_000);
    const { value, checkpoints } = drive(parseJsonWork(Buffer.from(text)));
    expect(value).toEqual(JSON.parse(text));
    expect(checkpoints).toBeGreaterThanOrEqual(60);
  });

  it('should make a checkpoint per item of a large array of small items', () => {
    const items = Array.from({ length: 5_000 }, (_, i) => ({ name: `item-${i}`, values: [i, i + 1, i + 2] }));
    const text = JSON.stringify(items);
    const { value, checkpoints } = drive(parseJsonWork(Buffer.from(text)));
    expect(value).toEqual(items);
    expect(checkpoints).toBeGreaterThanOrEqual(5_000);
  });
});
