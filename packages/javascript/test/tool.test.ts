import { describe, expect, it } from '@jest/globals';
import { createSessionLedger, isReaError } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import type { LedgerAccess } from '@rea/provider-kit';
import {
  JAVASCRIPT_CAPABILITIES,
  analyzeJavascriptApplicationTool,
  createJavascriptProvider,
  javascriptTools,
} from '@rea/javascript';
import type { JavascriptApplication } from '@rea/javascript';
import { quietToolContext, withTempDir } from '@rea/test-helpers';
import { electronApp } from './helpers/fixtures.js';

async function evidence(outcome: ReturnType<typeof executeTool>): Promise<EvidenceRecord> {
  const result = await outcome;
  if (result.kind !== 'evidence') throw new Error('expected Evidence');
  return result.record;
}

describe('analyze_javascript_application', () => {
  it('should be a tool of a ready tools provider, with the tools on its Evidence', async () => {
    const provider = createJavascriptProvider();
    expect(provider).toMatchObject({ kind: 'tools', id: 'javascript', name: '@rea/javascript' });
    expect(provider.capabilities).toEqual(JAVASCRIPT_CAPABILITIES);
    expect(provider.tools().map((t) => t.name)).toEqual([
      'analyze_javascript_application',
      'compare_application_versions',
      'compare_javascript_export_shapes',
      'compare_source_to_bundle',
      'trace_application_feature',
      'trace_javascript_semantics',
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
