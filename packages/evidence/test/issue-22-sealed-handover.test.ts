import { describe, expect, it, jest } from '@jest/globals';
import {
  EvidenceRecordSchema,
  canonicalJson,
  createSessionLedger,
  sealEvidence,
  sealEvidenceAsync,
} from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { caught, functionObservation } from './records.js';

// A record sealed in this process is retained without a second schema check and a second hash; its
// size in the ledger is the size of its canonical JSON, as for a record verified in full.
const observation = {
  ...functionObservation('0x401000', 2_000),
  local: { paths: ['/tmp/d\u00e9j\u00e0/a\u2028', '/tmp/b'] },
} as never;

describe('issue 22: a record sealed here is retained without being verified twice', () => {
  it('should retain a freshly sealed record without parsing it again, counting the same bytes', async () => {
    for (const seal of [sealEvidence, sealEvidenceAsync]) {
      const record = await seal(observation);
      const other = sealEvidence(functionObservation('0x402000'));
      const parse = jest.spyOn(EvidenceRecordSchema, 'safeParse');
      const ledger = createSessionLedger();
      try {
        await ledger.retainAsync(record);
        ledger.retain(other);
        expect(parse).not.toHaveBeenCalled();
      } finally {
        parse.mockRestore();
      }
      const copy = createSessionLedger();
      copy.retain(JSON.parse(JSON.stringify(record)) as EvidenceRecord);
      copy.retain(JSON.parse(JSON.stringify(sealEvidence(functionObservation('0x402000')))) as EvidenceRecord);
      expect(ledger.bytes).toBe(copy.bytes);
      expect(ledger.get(record.evidence_id)).toBe(record);
      expect(Buffer.byteLength(canonicalJson(record), 'utf8')).toBe(
        copy.bytes - Buffer.byteLength(canonicalJson(sealEvidence(functionObservation('0x402000'))), 'utf8'),
      );
    }
  });

  it('should verify in full a sealed record whose members were replaced, or a copy of one', async () => {
    const record = sealEvidence(observation) as EvidenceRecord & { normalized_result: unknown };
    record.normalized_result = { changed: true };
    const error = caught(() => createSessionLedger().retain(record));
    expect(error).toMatchObject({ code: 'evidence_integrity_mismatch', details: { field: 'evidence_id' } });
    await expect(createSessionLedger().retainAsync(record)).rejects.toMatchObject({
      code: 'evidence_integrity_mismatch',
    });

    const added = sealEvidence(observation) as EvidenceRecord & { extra?: number };
    added.extra = 1;
    expect(caught(() => createSessionLedger().retain(added))).toMatchObject({ code: 'invalid_request' });

    const copy = JSON.parse(JSON.stringify(sealEvidence(observation))) as EvidenceRecord;
    const parse = jest.spyOn(EvidenceRecordSchema, 'safeParse');
    try {
      createSessionLedger().retain(copy);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });
});
