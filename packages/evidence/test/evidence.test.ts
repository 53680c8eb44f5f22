import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { canonicalJson, computeEvidenceId, parseEvidence, sealEvidence } from '@rea/evidence';
import type { EvidenceRecord, JsonValue } from '@rea/evidence';
import { caught, functionObservation, functionRecord } from './records.js';

// The id computed with an independent RFC 8785 implementation (the `canonicalize` package).
function independentId(record: Record<string, unknown>): string {
  const { evidence_id: _id, local: _local, ...projection } = record;
  return `ev_${createHash('sha256')
    .update(canonicalize({ ...projection, schema_version: 2 })!)
    .digest('hex')}`;
}

function shuffleKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, i) => shuffleKeys(item, seed + i));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  // A deterministic rotation and reversal, different at each level.
  const rotated = entries
    .slice(seed % Math.max(entries.length, 1))
    .concat(entries.slice(0, seed % Math.max(entries.length, 1)));
  if (seed % 2 === 1) rotated.reverse();
  return Object.fromEntries(rotated.map(([key, item]) => [key, shuffleKeys(item, seed * 7 + 3)]));
}

describe('sealEvidence and parseEvidence', () => {
  it('should compute ev_ + SHA-256 of the canonical identity projection', () => {
    const record = functionRecord('0x401000');
    expect(record.evidence_id).toMatch(/^ev_[0-9a-f]{64}$/);
    expect(record.evidence_id).toBe(independentId(record));
    expect(record.schema_version).toBe(2);
    expect(computeEvidenceId(record)).toBe(record.evidence_id);
  });

  it('should keep the id under re-serialization and any key order', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.nat({ max: 1000 }), (result, seed) => {
        const sealed = sealEvidence({ ...functionObservation('0x401000'), normalized_result: result as JsonValue });
        const reparsed = JSON.parse(JSON.stringify(sealed)) as unknown;
        expect(parseEvidence(reparsed).evidence_id).toBe(sealed.evidence_id);
        const shuffled = shuffleKeys(reparsed, seed);
        expect(parseEvidence(shuffled).evidence_id).toBe(sealed.evidence_id);
        expect(canonicalJson(shuffled)).toBe(canonicalJson(sealed));
        expect(sealed.evidence_id).toBe(independentId(sealed as unknown as Record<string, unknown>));
      }),
      { numRuns: 200 },
    );
  });

  it('should leave machine-local facts out of the id', () => {
    const plain = functionRecord('0x401000');
    const here = sealEvidence({ ...functionObservation('0x401000'), local: { path: '/home/a/a.out', host: 'alpha' } });
    const there = sealEvidence({
      ...functionObservation('0x401000'),
      local: { path: 'C:\\work\\a.out', host: 'beta', at: '2026-01-01T00:00:00Z' },
    });
    expect(here.evidence_id).toBe(plain.evidence_id);
    expect(there.evidence_id).toBe(plain.evidence_id);
    expect(parseEvidence(JSON.parse(JSON.stringify(there))).local).toEqual(there.local);
    // Facts that are not local do change the id.
    expect(functionRecord('0x401004').evidence_id).not.toBe(plain.evidence_id);
  });

  it('should drop an explicitly undefined local so the record serializes', () => {
    const sealed = sealEvidence({ ...functionObservation('0x401000'), local: undefined } as never) as EvidenceRecord;
    expect('local' in sealed).toBe(false);
    expect(() => canonicalJson(sealed)).not.toThrow();
  });

  it('should refuse a tampered record with evidence_integrity_mismatch, declared and computed', () => {
    const record = JSON.parse(JSON.stringify(functionRecord('0x401000'))) as Record<string, unknown>;
    (record['parameters'] as Record<string, unknown>)['address'] = '0x401004';
    const error = caught(() => parseEvidence(record));
    expect(error.code).toBe('evidence_integrity_mismatch');
    expect(error.details).toEqual({
      field: 'evidence_id',
      declared: record['evidence_id'],
      computed: independentId(record),
    });
    expect(error.details['computed']).not.toBe(error.details['declared']);
  });

  it('should refuse a record whose id was replaced', () => {
    const record = { ...functionRecord('0x401000'), evidence_id: `ev_${'a'.repeat(64)}` };
    expect(caught(() => parseEvidence(record)).code).toBe('evidence_integrity_mismatch');
  });

  it('should refuse a tampered analysis profile with evidence_integrity_mismatch on its digest', () => {
    const record = JSON.parse(JSON.stringify(functionRecord('0x401000'))) as EvidenceRecord;
    const profile = record.analysis_profile!;
    profile.settings = { max_rows: 5 };
    const error = caught(() => parseEvidence(record));
    expect(error.code).toBe('evidence_integrity_mismatch');
    const expected = createHash('sha256')
      .update(canonicalize({ name: profile.name, version: profile.version, settings: { max_rows: 5 } })!)
      .digest('hex');
    expect(error.details).toEqual({ field: 'analysis_profile.digest', declared: profile.digest, computed: expected });
  });

  it('should refuse schema violations with invalid_request and the failing paths', () => {
    const record = JSON.parse(JSON.stringify(functionRecord('0x401000'))) as Record<string, unknown>;
    record['confidence'] = 'certain';
    delete record['analysis_profile'];
    (record['coverage'] as Record<string, unknown>)['status'] = 'mostly';
    record['extra'] = 1;
    const error = caught(() => parseEvidence(record));
    expect(error.code).toBe('invalid_request');
    const paths = (error.details['issues'] as Array<{ path: string }>).map((issue) => issue.path).sort();
    expect(paths).toEqual(['', 'analysis_profile', 'confidence', 'coverage.status']);
  });

  it('should name the input a refused record was given as, in its message, details and issue paths', () => {
    const record = JSON.parse(JSON.stringify(functionRecord('0x401000'))) as Record<string, unknown>;
    record['confidence'] = 'certain';
    const invalid = caught(() => parseEvidence(record, 'left'));
    expect(invalid.code).toBe('invalid_request');
    expect(invalid.message).toBe('The left record does not match the Evidence v2 schema.');
    expect(invalid.details['input']).toBe('left');
    expect((invalid.details['issues'] as Array<{ path: string }>).map((issue) => issue.path)).toEqual([
      'left.confidence',
    ]);
    const tampered = { ...functionRecord('0x401000'), evidence_id: `ev_${'a'.repeat(64)}` };
    const mismatch = caught(() => parseEvidence(tampered, 'right'));
    expect(mismatch.code).toBe('evidence_integrity_mismatch');
    expect(mismatch.message).toBe(`Evidence ev_${'a'.repeat(64)} (the right record) does not hash to its id.`);
    expect(mismatch.details['input']).toBe('right');
  });

  it('should refuse to seal an observation that is not JSON', () => {
    const error = caught(() =>
      sealEvidence({ ...functionObservation('0x401000'), normalized_result: { size: Number.NaN } }),
    );
    expect(error.code).toBe('invalid_request');
    expect(error.details['path']).toBe('$.normalized_result.size');
  });

  it('should refuse a non-object', () => {
    for (const value of [null, 'ev_x', 42, []]) expect(caught(() => parseEvidence(value)).code).toBe('invalid_request');
  });
});
