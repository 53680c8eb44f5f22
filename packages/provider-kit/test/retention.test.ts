import { describe, expect, it } from '@jest/globals';
import { createSessionLedger, isReaError, sealAnalysisView, sealEvidence, selectAnalysisView } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { requireRetention, retainAndSummarize } from '@rea/provider-kit';
import type { LedgerAccess } from '@rea/provider-kit';

const complete = {
  subject: null,
  provider: { id: 'example', name: 'example', version: '1.0.0' },
  analysis_profile: null,
  parameters: { detail: 'complete' },
  normalized_result: { items: [{ id: 'a' }, { id: 'b' }], name: 'example' },
  raw_result: null,
  confidence: 'observed' as const,
  limitations: [],
  coverage: { status: 'complete' as const, reasons: [] },
  locations: [],
  evidence_links: [],
};

describe('retainAndSummarize', () => {
  it('should retain the complete record and return the inspect_analysis_view summary of it', async () => {
    const ledger = createSessionLedger();
    const summary = await retainAndSummarize(
      'inspect_example',
      complete,
      ledger as unknown as LedgerAccess,
      new AbortController().signal,
    );
    const parent = sealEvidence({ ...complete, operation: 'inspect_example' }) as EvidenceRecord;
    expect(ledger.get(parent.evidence_id)).toEqual(parent);
    const view = sealAnalysisView(parent, selectAnalysisView(parent, { view: 'summary' }));
    // Sealing the answer again gives the view's own id: it is exactly that view's Evidence.
    expect(sealEvidence(summary as Parameters<typeof sealEvidence>[0]).evidence_id).toBe(view.evidence_id);
    expect(summary.operation).toBe('inspect_analysis_view');
    expect(summary.evidence_links).toEqual([parent.evidence_id]);
    expect(summary.normalized_result.parent_evidence_id).toBe(parent.evidence_id);
  });

  it('should retain nothing once the call is cancelled', async () => {
    const ledger = createSessionLedger();
    const controller = new AbortController();
    controller.abort();
    const error = await retainAndSummarize(
      'inspect_example',
      complete,
      ledger as unknown as LedgerAccess,
      controller.signal,
    ).catch((e: unknown) => e);
    expect(isReaError(error) && error.code).toBe('cancelled');
    expect(ledger.size).toBe(0);
  });

  it('should refuse summary without a ledger with capability_unavailable', () => {
    let error: unknown = null;
    try {
      requireRetention(null);
    } catch (e) {
      error = e;
    }
    expect(isReaError(error) && [error.code, error.details['capability']]).toEqual([
      'capability_unavailable',
      'session-retention',
    ]);
  });
});
