// Merging records into a ledger and importing a bundle verify large records a slice at a time: a
// probe that reschedules itself with setImmediate (standing for another request) runs meanwhile, the
// outcome and errors are those of the synchronous merge, and a cancel leaves the ledger unchanged.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSessionLedger, exportBundle, importBundle, sealEvidence } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { turnProbe } from '@rea/test-helpers';
import { caught, functionObservation, functionRecord } from './records.js';

// Copies, as read from a bundle: a record sealed in this process is merged without being verified again.
const large = (address: string): EvidenceRecord =>
  JSON.parse(JSON.stringify(sealEvidence(functionObservation(address, 40_000)))) as EvidenceRecord;
const records = [large('0x401000'), large('0x402000'), functionRecord('0x403000')];

/** Counts turns of the event loop while `work` runs; the probe stops in every case. */
async function probed<T>(work: () => Promise<T>): Promise<{ value?: T; error?: unknown; turns: number }> {
  const probe = turnProbe();
  try {
    return await work().then(
      (value) => ({ value, turns: probe.turns() }),
      (error: unknown) => ({ error, turns: probe.turns() }),
    );
  } finally {
    probe.stop();
  }
}

describe('issue 15: merging and importing Evidence without holding the event loop', () => {
  let dir: string;
  let bundle: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rea-async-merge-'));
    bundle = join(dir, 'bundle.json');
    await exportBundle(records, bundle);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('should merge what merge merges, with turns of the event loop', async () => {
    const ledger = createSessionLedger();
    ledger.retain(records[2]!);
    const { value, error, turns } = await probed(() => ledger.mergeAsync([...records, records[0]!]));
    expect(error).toBeUndefined();
    expect(turns).toBeGreaterThan(1);
    const synchronous = createSessionLedger();
    synchronous.retain(records[2]!);
    expect(value).toEqual(synchronous.merge([...records, records[0]!]));
    expect(value).toEqual({
      added: [records[0]!.evidence_id, records[1]!.evidence_id],
      already_present: [records[2]!.evidence_id],
    });
    expect(ledger.bytes).toBe(synchronous.bytes);
    expect(ledger.list()).toEqual(synchronous.list());
  });

  it('should refuse a tampered record and a bound as merge does, retaining nothing', async () => {
    const tampered = JSON.parse(JSON.stringify(records[1])) as {
      normalized_result: { procedure: { assembly: { operands: string }[] } };
    };
    tampered.normalized_result.procedure.assembly[39_999]!.operands = 'rax, 0';
    const bad = [records[0]!, tampered as unknown as EvidenceRecord];
    const ledger = createSessionLedger();
    const expected = caught(() => createSessionLedger().merge(bad));
    expect(expected).toMatchObject({ code: 'evidence_integrity_mismatch' });
    const { error } = await probed(() => ledger.mergeAsync(bad));
    expect(error).toMatchObject({ code: expected.code, message: expected.message, details: expected.details });
    expect(ledger.size).toBe(0);

    const small = createSessionLedger({ maxRecords: 1 });
    const bound = caught(() => createSessionLedger({ maxRecords: 1 }).merge(records));
    await expect(small.mergeAsync(records)).rejects.toMatchObject({ code: bound.code, details: bound.details });
    expect(small.size).toBe(0);
  });

  it('should leave the ledger unchanged when the merge is cancelled meanwhile', async () => {
    const ledger = createSessionLedger();
    ledger.retain(records[2]!);
    const controller = new AbortController();
    setImmediate(() => controller.abort());
    const { error, turns } = await probed(() => ledger.mergeAsync(records, controller.signal));
    expect(error).toMatchObject({ code: 'cancelled', details: { phase: 'merge' } });
    expect(turns).toBeGreaterThan(0);
    expect(ledger.list()).toEqual([records[2]]);
  });

  it('should import a bundle with turns of the event loop, and import nothing when cancelled meanwhile', async () => {
    const { value, turns } = await probed(() => importBundle(bundle));
    expect(turns).toBeGreaterThan(1);
    expect(value?.records).toEqual(records);

    const ledger = createSessionLedger();
    const controller = new AbortController();
    setImmediate(() => controller.abort());
    const { error } = await probed(() => ledger.importBundle(bundle, { signal: controller.signal }));
    expect(error).toMatchObject({ code: 'cancelled' });
    expect(ledger.size).toBe(0);
    await expect(ledger.importBundle(bundle)).resolves.toMatchObject({ added: records.map((r) => r.evidence_id) });
    expect(ledger.size).toBe(3);
  });
});
