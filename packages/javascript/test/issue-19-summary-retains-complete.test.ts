import { describe, expect, it } from '@jest/globals';
import { createSessionLedger, isReaError, sealAnalysisView, selectAnalysisView } from '@rea/evidence';
import type { EvidenceRecord, SummaryView } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import type { LedgerAccess } from '@rea/provider-kit';
import { analyzeJavascriptApplicationTool, traceApplicationFeatureTool } from '@rea/javascript';
import type { FeatureTrace, JavascriptApplication } from '@rea/javascript';
import { quietToolContext, withTempDir } from '@rea/test-helpers';
import { electronApp } from './helpers/fixtures.js';

async function evidence(outcome: ReturnType<typeof executeTool>): Promise<EvidenceRecord> {
  const result = await outcome;
  if (result.kind !== 'evidence') throw new Error('expected Evidence');
  return result.record;
}

const analyze = (path: string, detail: string, ledger: LedgerAccess | null) =>
  evidence(executeTool(analyzeJavascriptApplicationTool, { path, detail }, quietToolContext({ ledger })));

describe('analyze_javascript_application detail "summary"', () => {
  it('should retain exactly the complete record and return its inspect_analysis_view summary', async () => {
    await withTempDir(async (tmp) => {
      const app = electronApp(tmp);
      const complete = await analyze(app, 'complete', null);
      const ledger = createSessionLedger();
      const summary = await analyze(app, 'summary', ledger as unknown as LedgerAccess);

      // The retained parent is the record "complete" answers: same id, same record.
      const view = summary.normalized_result as unknown as SummaryView;
      expect(view.parent_evidence_id).toBe(complete.evidence_id);
      expect(ledger.get(complete.evidence_id)).toEqual(complete);
      expect(ledger.size).toBe(1);
      // The answer is the derived view Evidence inspect_analysis_view would seal for that parent.
      expect(summary.operation).toBe('inspect_analysis_view');
      expect(summary.confidence).toBe('derived');
      expect(summary.evidence_links).toEqual([complete.evidence_id]);
      const expected = sealAnalysisView(complete, selectAnalysisView(complete, { view: 'summary' }));
      expect(summary.evidence_id).toBe(expected.evidence_id);

      // An application summary names the application and its coverage per semantic phase.
      const result = complete.normalized_result as JavascriptApplication;
      expect(view.summary.application).toEqual({
        input_format: 'directory',
        integrity_policy: 'fail-closed',
        electron: true,
        name: 'notes-app',
        version: '1.2.3',
        roles: result.roles.map((r) => ({ role: r.role, node_id: r.node_id })),
        feature_flags: expect.objectContaining({ sites: result.feature_flags.length }),
      });
      // renderer.js and index.html, which holds an inline script.
      expect(view.summary.application!.roles.map((r) => r.role).sort()).toEqual([
        'main',
        'preload',
        'renderer',
        'renderer',
      ]);
      expect(view.summary.semantic_coverage!.map((p) => `${p.phase} ${p.status}`)).toEqual([
        'read complete',
        'inventory complete',
        'parse complete',
        'bundles complete',
        'source-maps complete',
        'graph complete',
        'electron complete',
      ]);
      expect(view.summary.collections['modules']).toBe(result.modules.length);
    });
  });

  it('should refuse summary without a session ledger before analyzing', async () => {
    await withTempDir(async (tmp) => {
      const refused = await analyze(electronApp(tmp), 'summary', null).catch((e: unknown) => e);
      expect(isReaError(refused) && [refused.code, refused.details['capability']]).toEqual([
        'capability_unavailable',
        'session-retention',
      ]);
    });
  });

  it('should let trace_application_feature resolve a summary, inline or retained, to its parent', async () => {
    await withTempDir(async (tmp) => {
      const ledger = createSessionLedger();
      const access = ledger as unknown as LedgerAccess;
      const summary = await analyze(electronApp(tmp), 'summary', access);
      const parentId = (summary.normalized_result as unknown as SummaryView).parent_evidence_id;
      // A server retains every answer; retain the summary as it would.
      ledger.retain(summary);
      const seed = { kind: 'ipc_channel', value: 'notes:save' };
      for (const application of [{ kind: 'retained-evidence', evidence_id: summary.evidence_id }, summary]) {
        const traced = await evidence(
          executeTool(traceApplicationFeatureTool, { application, seed }, quietToolContext({ ledger: access })),
        );
        expect(traced.evidence_links).toEqual([parentId]);
        expect((traced.normalized_result as unknown as FeatureTrace).ipc_channels[0]?.channel).toBe('notes:save');
      }
      // Without the session that retained the parent, an inline summary names the missing parent.
      const missing = await executeTool(
        traceApplicationFeatureTool,
        { application: summary, seed },
        quietToolContext({ ledger: createSessionLedger() as unknown as LedgerAccess }),
      ).catch((e: unknown) => e);
      expect(isReaError(missing) && [missing.code, missing.details['evidence_id']]).toEqual(['not_found', parentId]);
    });
  });
});
