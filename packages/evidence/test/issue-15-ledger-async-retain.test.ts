import { describe, expect, it, jest } from '@jest/globals';
import { canonicalJson, createSessionLedger, sealEvidence } from '@rea/evidence';
import type { EvidenceRecord, SessionLedger } from '@rea/evidence';
import { retainAndSummarize } from '@rea/provider-kit';
import { turnProbe } from '@rea/test-helpers';
import { caught, functionObservation } from './records.js';

// A record of several megabytes: a long assembly table, and a machine-local part with non-ASCII text
// that is outside the id but counted in the ledger's bytes.
const record = sealEvidence({
  ...functionObservation('0x401000', 60_000),
  local: { paths: Array.from({ length: 5_000 }, (_, i) => `/tmp/d\u00e9j\u00e0/${i}\u2028`) },
} as never);
const clone = (): EvidenceRecord => JSON.parse(JSON.stringify(record)) as EvidenceRecord;

async function retainProbed(ledger: SessionLedger, value: EvidenceRecord, signal?: AbortSignal) {
  const probe = turnProbe();
  try {
    const started = probe.turns();
    const outcome = await ledger.retainAsync(value, signal).then(
      (retained) => ({ retained, error: undefined }),
      (error: unknown) => ({ retained: undefined, error }),
    );
    return { ...outcome, turns: probe.turns() - started };
  } finally {
    probe.stop();
  }
}

describe('issue 15: retaining a large record without holding the event loop', () => {
  it('should let the event loop turn while it verifies, and retain what the synchronous path retains', async () => {
    expect(Buffer.byteLength(canonicalJson(record))).toBeGreaterThan(3_000_000);
    const ledger = createSessionLedger();
    // A copy, not the record sealed here: that one is retained without being verified again.
    const stranger = clone();
    const { retained, error, turns } = await retainProbed(ledger, stranger);
    expect(error).toBeUndefined();
    expect(turns).toBeGreaterThan(1);
    expect(retained).toBe(stranger);

    const synchronous = createSessionLedger();
    synchronous.retain(record);
    expect(ledger.bytes).toBe(synchronous.bytes);
    expect(ledger.bytes).toBe(Buffer.byteLength(canonicalJson(record), 'utf8'));
    expect(ledger.summaries()).toEqual(synchronous.summaries());
    await expect(ledger.retainAsync(record)).resolves.toBe(stranger);
    expect(ledger.size).toBe(1);
  });

  it('should refuse a tampered record with the error of the synchronous path, retaining nothing', async () => {
    const tampered = clone() as unknown as { normalized_result: { procedure: { assembly: { operands: string }[] } } };
    tampered.normalized_result.procedure.assembly[59_999]!.operands = 'rax, 0';
    const ledger = createSessionLedger();
    const { error, turns } = await retainProbed(ledger, tampered as unknown as EvidenceRecord);
    const expected = caught(() => createSessionLedger().retain(tampered as unknown as EvidenceRecord));
    expect(expected).toMatchObject({ code: 'evidence_integrity_mismatch', details: { field: 'evidence_id' } });
    expect(error).toMatchObject({ code: expected.code, message: expected.message, details: expected.details });
    expect(turns).toBeGreaterThan(1);
    expect(ledger.size).toBe(0);
    expect(ledger.bytes).toBe(0);
  });

  it('should count a changed local part, which is outside the id, as the synchronous path does', async () => {
    const moved = { ...clone(), local: { paths: ['/elsewhere/\u00e9'] } } as EvidenceRecord;
    const ledger = createSessionLedger();
    await expect(ledger.retainAsync(moved)).resolves.toBe(moved);
    expect(ledger.bytes).toBe(Buffer.byteLength(canonicalJson(moved), 'utf8'));
  });

  it('should retain nothing when cancelled while verifying, and once when retained twice at a time', async () => {
    const controller = new AbortController();
    const ledger = createSessionLedger();
    setImmediate(() => controller.abort());
    const { error } = await retainProbed(ledger, clone(), controller.signal);
    expect(error).toMatchObject({ code: 'cancelled', details: { phase: 'publication' } });
    expect(ledger.size).toBe(0);

    const [first, second] = await Promise.all([ledger.retainAsync(record), ledger.retainAsync(clone())]);
    // Whichever verification finishes first is retained; the other call answers with that same record.
    expect(second).toBe(first);
    expect(first).toEqual(record);
    expect(ledger.size).toBe(1);
    expect(ledger.bytes).toBe(Buffer.byteLength(canonicalJson(record), 'utf8'));
  });

  it('should retain the parent of a summary through the asynchronous path', async () => {
    const ledger = createSessionLedger();
    const retain = jest.spyOn(ledger, 'retain');
    const retainAsync = jest.spyOn(ledger, 'retainAsync');
    const { evidence_id: _id, schema_version: _version, operation, ...complete } = record;
    const summary = await retainAndSummarize(operation, complete, ledger, new AbortController().signal);
    expect(summary.normalized_result.parent_evidence_id).toBe(record.evidence_id);
    expect(retain).not.toHaveBeenCalled();
    expect(retainAsync).toHaveBeenCalledTimes(1);
    expect(ledger.get(record.evidence_id)).toEqual(record);
    expect(ledger.bytes).toBe(Buffer.byteLength(canonicalJson(record), 'utf8'));
  });
});
