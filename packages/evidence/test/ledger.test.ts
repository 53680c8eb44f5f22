import { describe, expect, it } from '@jest/globals';
import { canonicalJson, createSessionLedger, parseEvidence } from '@rea/evidence';
import type { EvidenceRecord, SessionLedger } from '@rea/evidence';
import type { LedgerAccess } from '@rea/provider-kit';
import { caught, functionRecord, recordWith, sha } from './records.js';

const bytesOf = (record: EvidenceRecord): number => Buffer.byteLength(canonicalJson(record), 'utf8');

describe('createSessionLedger', () => {
  it('should retain, get, resolve and list records in insertion order', () => {
    const ledger = createSessionLedger();
    const records = ['0x401010', '0x401000', '0x401020'].map((address) => functionRecord(address));
    for (const record of records) expect(ledger.retain(record)).toBe(record);
    expect(ledger.list().map((r) => r.evidence_id)).toEqual(records.map((r) => r.evidence_id));
    expect(ledger.size).toBe(3);
    expect(ledger.bytes).toBe(records.reduce((sum, r) => sum + bytesOf(r), 0));
    expect(ledger.get(records[1]!.evidence_id)).toBe(records[1]);
    expect(ledger.has(records[2]!.evidence_id)).toBe(true);
    expect(ledger.resolve({ kind: 'retained-evidence', evidence_id: records[0]!.evidence_id })).toBe(records[0]);
  });

  it('should be idempotent for a record already retained', () => {
    const ledger = createSessionLedger({ maxRecords: 1 });
    const record = functionRecord('0x401000');
    ledger.retain(record);
    const again = parseEvidence(JSON.parse(JSON.stringify(record)));
    expect(ledger.retain(again)).toBe(record);
    expect(ledger.size).toBe(1);
    expect(ledger.bytes).toBe(bytesOf(record));
  });

  it('should report a missing reference as not_found with the exact id', () => {
    const ledger = createSessionLedger();
    const id = functionRecord('0x401000').evidence_id;
    const error = caught(() => ledger.resolve({ kind: 'retained-evidence', evidence_id: id }));
    expect(error.code).toBe('not_found');
    expect(error.details).toEqual({ reason: 'missing', evidence_id: id });
    expect(ledger.get(id)).toBeUndefined();
    expect(ledger.has(id)).toBe(false);
    expect(caught(() => ledger.resolve({ kind: 'other', evidence_id: 'x' } as never)).code).toBe('invalid_request');
  });

  it('should refuse past the record bound with resource_constraint and never evict', () => {
    const ledger = createSessionLedger({ maxRecords: 2 });
    const [a, b, c] = ['0x1', '0x2', '0x3'].map((address) => functionRecord(address));
    ledger.retain(a!);
    ledger.retain(b!);
    const error = caught(() => ledger.retain(c!));
    expect(error.code).toBe('resource_constraint');
    expect(error.details).toMatchObject({ resource: 'memory', bound: 'records', limit: 2, observed: 3 });
    expect(ledger.list()).toEqual([a, b]);
    expect(ledger.has(c!.evidence_id)).toBe(false);
  });

  it('should refuse past the byte bound with resource_constraint and never evict', () => {
    const a = functionRecord('0x1', 10);
    const b = functionRecord('0x2', 200);
    const ledger = createSessionLedger({ maxBytes: bytesOf(a) + bytesOf(b) - 1 });
    ledger.retain(a);
    const error = caught(() => ledger.retain(b));
    expect(error.code).toBe('resource_constraint');
    expect(error.details).toMatchObject({
      resource: 'memory',
      bound: 'bytes',
      limit: bytesOf(a) + bytesOf(b) - 1,
      observed: bytesOf(a) + bytesOf(b),
    });
    expect(ledger.list()).toEqual([a]);
    expect(ledger.bytes).toBe(bytesOf(a));
  });

  it('should refuse tampered and malformed records', () => {
    const ledger = createSessionLedger();
    const tampered = { ...functionRecord('0x1'), operation: 'analyze_functions' };
    expect(caught(() => ledger.retain(tampered)).code).toBe('evidence_integrity_mismatch');
    expect(caught(() => ledger.retain({ evidence_id: 'ev_1' } as never)).code).toBe('invalid_request');
    expect(ledger.size).toBe(0);
  });

  it('should refuse invalid bounds', () => {
    expect(caught(() => createSessionLedger({ maxRecords: 0 })).code).toBe('invalid_request');
    expect(caught(() => createSessionLedger({ maxBytes: 1.5 })).code).toBe('invalid_request');
  });

  it('should merge all or nothing, idempotently', () => {
    const ledger = createSessionLedger({ maxRecords: 3 });
    const [a, b, c, d] = ['0x1', '0x2', '0x3', '0x4'].map((address) => functionRecord(address));
    ledger.retain(a!);
    // A record given twice is added once, and was not present before; a retained one is named once.
    expect(ledger.merge([a!, b!, b!, a!])).toEqual({
      added: [b!.evidence_id],
      already_present: [a!.evidence_id],
    });
    const error = caught(() => ledger.merge([c!, d!]));
    expect(error.code).toBe('resource_constraint');
    expect(ledger.list()).toEqual([a, b]);
    expect(ledger.merge([c!]).added).toEqual([c!.evidence_id]);
    expect(ledger.merge([a!, b!, c!])).toEqual({ added: [], already_present: [a, b, c].map((r) => r!.evidence_id) });
  });

  it('should clear every record', () => {
    const ledger = createSessionLedger();
    ledger.retain(functionRecord('0x1'));
    ledger.retain(functionRecord('0x2'));
    expect(ledger.clear()).toBe(2);
    expect(ledger.size).toBe(0);
    expect(ledger.bytes).toBe(0);
    expect(ledger.list()).toEqual([]);
  });

  it('should summarize without payloads and filter by exact match', () => {
    const ledger = createSessionLedger();
    const fn = functionRecord('0x401000', 3, 'one');
    const other = functionRecord('0x402000', 3, 'two');
    const artifact = recordWith({ address: '0x0', entries: [] }, 'inspect_artifact');
    const listing = recordWith({ entries: [{ address: '0x0' }] }, 'list_entries');
    ledger.merge([fn, other, artifact, listing]);
    const all = ledger.summaries();
    expect(all).toEqual([
      {
        evidence_id: fn.evidence_id,
        operation: 'analyze_function',
        target_sha256: sha('one'),
        target_format: 'elf',
        provider: { id: 'capstone', name: 'Capstone', version: '5.0.1' },
        analysis_profile_digest: fn.analysis_profile!.digest,
        procedure_address: '0x401000',
        bytes: bytesOf(fn),
        retention: 'complete-record',
      },
      expect.objectContaining({
        evidence_id: other.evidence_id,
        procedure_address: '0x402000',
        target_sha256: sha('two'),
      }),
      expect.objectContaining({ evidence_id: artifact.evidence_id, procedure_address: '0x0' }),
      expect.objectContaining({ evidence_id: listing.evidence_id, procedure_address: null }),
    ]);
    expect(JSON.stringify(all)).not.toContain('assembly');
    expect(ledger.summaries({ procedure_address: '0x402000' }).map((s) => s.evidence_id)).toEqual([other.evidence_id]);
    expect(ledger.summaries({ target_sha256: sha('one') }).map((s) => s.evidence_id)).toEqual([fn.evidence_id]);
    expect(ledger.summaries({ evidence_id: other.evidence_id, operation: 'analyze_function' })).toHaveLength(1);
    expect(ledger.summaries({ operation: 'analyze' })).toEqual([]);
    expect(ledger.summaries({ analysis_profile_digest: fn.analysis_profile!.digest })).toHaveLength(4);
    expect(caught(() => ledger.summaries({ procedure: '0x1' } as never)).code).toBe('invalid_request');
  });

  it('should satisfy LedgerAccess of @rea/provider-kit', () => {
    const ledger: SessionLedger = createSessionLedger();
    const access: LedgerAccess = ledger;
    const record = ledger.retain(functionRecord('0x1'));
    expect(access.get(record.evidence_id)).toBe(record);
  });
});
