import { describe, expect, it } from '@jest/globals';
import { createSessionLedger, isReaError, selectAnalysisView } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import type { LedgerAccess } from '@rea/provider-kit';
import {
  JAVASCRIPT_CAPABILITIES,
  analyzeJavascriptApplicationTool,
  createJavascriptProvider,
  javascriptTools,
} from '@rea/javascript';
import type { JavascriptApplication, JavascriptApplicationSummary } from '@rea/javascript';
import { quietToolContext, withTempDir } from '@rea/test-helpers';
import { electronApp } from './helpers/fixtures.js';

async function evidence(outcome: ReturnType<typeof executeTool>): Promise<EvidenceRecord> {
  const result = await outcome;
  if (result.kind !== 'evidence') throw new Error('expected Evidence');
  return result.record;
}

describe('analyze_javascript_application', () => {
  it('should be a tool of a ready tools provider, with the feature trace', async () => {
    const provider = createJavascriptProvider();
    expect(provider).toMatchObject({ kind: 'tools', id: 'javascript', name: '@rea/javascript' });
    expect(provider.capabilities).toEqual(JAVASCRIPT_CAPABILITIES);
    expect(provider.tools().map((t) => t.name)).toEqual([
      'analyze_javascript_application',
      'trace_application_feature',
    ]);
    expect(javascriptTools[0]).toBe(analyzeJavascriptApplicationTool);
    expect((await provider.probe()).status).toBe('ready');
  });

  it('should return the complete analysis as Evidence with coverage per phase', async () => {
    await withTempDir(async (tmp) => {
      const record = await evidence(
        executeTool(analyzeJavascriptApplicationTool, { path: electronApp(tmp) }, quietToolContext()),
      );
      expect(record.operation).toBe('analyze_javascript_application');
      expect(record.provider.id).toBe('javascript');
      expect(record.subject?.format).toBe('directory');
      const result = record.normalized_result as JavascriptApplication;
      expect(result.view).toBe('complete');
      expect(result.phases.map((p) => `${p.phase} ${p.status}`)).toEqual([
        'read complete',
        'inventory complete',
        'parse complete',
        'bundles complete',
        'source-maps complete',
        'graph complete',
        'electron complete',
      ]);
      expect(record.parameters).toEqual({ detail: 'complete', integrity_policy: 'fail-closed' });
    });
  });

  it('should retain the complete record for detail "summary" and return a summary linked to it', async () => {
    await withTempDir(async (tmp) => {
      const app = electronApp(tmp);
      const refused = await executeTool(
        analyzeJavascriptApplicationTool,
        { path: app, detail: 'summary' },
        quietToolContext(),
      ).catch((e: unknown) => e);
      expect(isReaError(refused) && refused.code).toBe('capability_unavailable');
      const ledger = createSessionLedger();
      const summary = await evidence(
        executeTool(
          analyzeJavascriptApplicationTool,
          { path: app, detail: 'summary' },
          quietToolContext({ ledger: ledger as unknown as LedgerAccess }),
        ),
      );
      const view = summary.normalized_result as JavascriptApplicationSummary;
      expect(view.view).toBe('summary');
      expect(summary.evidence_links).toEqual([view.parent_evidence_id]);
      const parent = ledger.get(view.parent_evidence_id)!;
      expect(parent.operation).toBe('analyze_javascript_application');
      const complete = parent.normalized_result as JavascriptApplication;
      expect(view.collections['ipc']).toBe(complete.ipc.length);
      expect(view.collections['modules']).toBe(complete.modules.length);
      expect(view.collections['edges']).toBe(complete.edges.length);
      // The retained record pages like any other: one module by its exact node id.
      const item = selectAnalysisView(parent, { view: 'item', collection: 'modules', id: 'file:preload.js' });
      expect(item.view === 'item' && item.item).toMatchObject({ path: 'preload.js', roles: ['preload'] });
    });
  });

  it('should retain nothing when the call is cancelled', async () => {
    await withTempDir(async (tmp) => {
      const ledger = createSessionLedger();
      const controller = new AbortController();
      const context = quietToolContext({
        ledger: ledger as unknown as LedgerAccess,
        signal: controller.signal,
        progress: { report: (_m, phase) => phase === 'parse' && controller.abort() },
      });
      const error = await executeTool(
        analyzeJavascriptApplicationTool,
        { path: electronApp(tmp), detail: 'summary' },
        context,
      ).catch((e: unknown) => e);
      expect(isReaError(error) && error.code).toBe('cancelled');
      expect(ledger.size).toBe(0);
    });
  });
});
