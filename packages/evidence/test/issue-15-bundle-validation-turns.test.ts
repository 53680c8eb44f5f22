// Verifying the records of a bundle gives the event loop turns even when every record is small: each
// small record is verified without a turn of its own, so the import loop takes one, between records,
// once a slice has run. The slices are timed on a controlled clock while the records are verified (it
// advances a hundredth of a millisecond at each reading), so that no record's verification is ever
// slow enough to take a turn of its own, whatever the load of the machine: a turn can only come from
// the slice kept across records. Turns are seen by immediates that must run between two records.
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BundleEnvelopeSchema, EvidenceRecordSchema, exportBundle, importBundle } from '@rea/evidence';
import { functionRecord } from './records.js';

/** What the controlled clock advances at each reading (ms). */
const STEP = 0.01;
/** The longest stretch of verification between two turns (the import's slice, ms). */
const SLICE_MS = 10;

describe('issue 15: the records of a bundle are verified with turns of the event loop', () => {
  let dir: string;
  let bundle: string;
  const records = Array.from({ length: 2000 }, (_, i) => functionRecord(`0x${(0x401000 + i * 16).toString(16)}`, 1));
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rea-bundle-validation-'));
    bundle = join(dir, 'bundle.json');
    await exportBundle(records, bundle);
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Imports the bundle with the controlled clock running while its records are verified, calling
   * `atTurn` at every turn of the event loop meanwhile with the number of records verified so far.
   */
  async function importObserved(atTurn: (verified: number) => void, signal?: AbortSignal) {
    let verified = 0;
    let reads = 0;
    let validating = false;
    const recordParse = EvidenceRecordSchema.safeParse.bind(EvidenceRecordSchema);
    jest.spyOn(EvidenceRecordSchema, 'safeParse').mockImplementation((value: unknown) => {
      if (validating) verified += 1;
      return recordParse(value);
    });
    const realNow = performance.now.bind(performance);
    let clock = 0;
    const now = jest.spyOn(performance, 'now').mockImplementation(() => {
      if (!validating) return realNow();
      reads += 1;
      return (clock += STEP);
    });
    const envelopeParse = BundleEnvelopeSchema.safeParse.bind(BundleEnvelopeSchema);
    // The envelope is checked just before the records are verified: the clock starts then, and an
    // immediate is kept queued from then on, each one counting a turn.
    jest.spyOn(BundleEnvelopeSchema, 'safeParse').mockImplementation((value: unknown) => {
      validating = true;
      const tick = () => {
        if (!validating) return;
        atTurn(verified);
        setImmediate(tick);
      };
      setImmediate(tick);
      return envelopeParse(value);
    });
    try {
      return { result: await importBundle(bundle, signal ? { signal } : {}), verified, reads };
    } catch (error) {
      return { error, verified, reads };
    } finally {
      validating = false;
      now.mockRestore();
    }
  }

  it('should turn the event loop between records while a couple of thousand small records are verified', async () => {
    const turns: number[] = [];
    const { result, verified, reads } = await importObserved((n) => turns.push(n));
    expect(result?.records).toEqual(records);
    expect(verified).toBe(records.length);
    // The premise: one record's verification reads the clock far less than a slice's worth of times,
    // so that none of them takes a turn on its own.
    expect((reads / records.length) * STEP).toBeLessThan(SLICE_MS / 4);
    // Turns came while records were being verified (not only before the first or after the last),
    // at many points between them, a slice's worth of clock readings apart at most.
    const during = turns.filter((n) => n > 0 && n < records.length);
    expect(new Set(during).size).toBeGreaterThanOrEqual(Math.floor((reads * STEP) / SLICE_MS / 2));
    expect(new Set(during).size).toBeGreaterThan(10);
  }, 120_000);

  it('should end as cancelled when a cancel comes during the validation of the records', async () => {
    const controller = new AbortController();
    let cancelledAfter = -1;
    const { error, verified } = await importObserved((n) => {
      if (n > 0 && cancelledAfter < 0) {
        cancelledAfter = n;
        controller.abort();
      }
    }, controller.signal);
    expect(error).toMatchObject({ code: 'cancelled', details: { phase: 'bundle validation' } });
    // Cancelled between two records: the rest were not verified.
    expect(cancelledAfter).toBeGreaterThan(0);
    expect(verified).toBeLessThan(records.length);
  }, 120_000);
});
