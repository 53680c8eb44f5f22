// Verifying the records of a bundle gives the event loop turns even when every record is small: each
// small record is verified without a turn of its own, so the import loop takes one once a slice has
// run. Seen through a cancel queued when validation starts: it must take effect during validation.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BundleEnvelopeSchema, exportBundle, importBundle } from '@rea/evidence';
import { functionRecord } from './records.js';

describe('issue 15: the records of a bundle are verified with turns of the event loop', () => {
  let dir: string;
  let bundle: string;
  const records = Array.from({ length: 5000 }, (_, i) => functionRecord(`0x${(0x401000 + i * 16).toString(16)}`, 1));
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rea-bundle-validation-'));
    bundle = join(dir, 'bundle.json');
    await exportBundle(records, bundle);
  });
  afterAll(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should import thousands of small records, and end as cancelled when a cancel comes during their validation', async () => {
    expect((await importBundle(bundle)).records).toEqual(records);
    const controller = new AbortController();
    const safeParse = BundleEnvelopeSchema.safeParse.bind(BundleEnvelopeSchema);
    // The envelope is checked just before the records are verified: the cancel is queued then.
    jest.spyOn(BundleEnvelopeSchema, 'safeParse').mockImplementation((value: unknown) => {
      setImmediate(() => controller.abort());
      return safeParse(value);
    });
    await expect(importBundle(bundle, { signal: controller.signal })).rejects.toMatchObject({
      code: 'cancelled',
      details: { phase: 'bundle validation' },
    });
  }, 120_000);
});
