import { describe, expect, it } from '@jest/globals';
import { createSessionLedger, isReaError } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import type { LedgerAccess } from '@rea/provider-kit';
import { analyzeJavascriptApplicationTool, traceApplicationFeatureTool } from '@rea/javascript';
import type { FeatureTrace } from '@rea/javascript';
import { quietToolContext, withTempDir } from '@rea/test-helpers';
import { electronApp } from './helpers/fixtures.js';

async function evidence(outcome: ReturnType<typeof executeTool>): Promise<EvidenceRecord> {
  const result = await outcome;
  if (result.kind !== 'evidence') throw new Error('expected Evidence');
  return result.record;
}

async function analysis(app: string, ledger: LedgerAccess | null = null, detail = 'complete') {
  return evidence(executeTool(analyzeJavascriptApplicationTool, { path: app, detail }, quietToolContext({ ledger })));
}

async function trace(application: unknown, seed: object, ledger: LedgerAccess | null = null) {
  const record = await evidence(
    executeTool(traceApplicationFeatureTool, { application, seed }, quietToolContext({ ledger })),
  );
  return { record, trace: record.normalized_result as unknown as FeatureTrace };
}

describe('trace_application_feature', () => {
  it('should connect an IPC channel across the preload and main processes', async () => {
    await withTempDir(async (tmp) => {
      const parent = await analysis(electronApp(tmp));
      const { record, trace: result } = await trace(parent, { kind: 'ipc_channel', value: 'notes:save' });
      expect(record.evidence_links).toEqual([parent.evidence_id]);
      expect(result.ipc_channels).toEqual([
        {
          channel: 'notes:save',
          sites: [
            { node_id: 'file:main.js', api: 'ipcMain.handle', line: 15 },
            { node_id: 'file:preload.js', api: 'ipcRenderer.invoke', line: 4 },
          ],
        },
      ]);
      expect(result.modules).toEqual(['file:main.js', 'file:preload.js']);
    });
  });

  it('should trace an exported symbol to its module and the import path from the main script', async () => {
    await withTempDir(async (tmp) => {
      const parent = await analysis(electronApp(tmp));
      const { trace: result } = await trace(parent, { kind: 'symbol', value: 'format', match: 'prefix' });
      expect(result.sites).toEqual([
        { node_id: 'file:lib/util.js', kind: 'export', detail: 'commonjs formatTitle', line: null, column: null },
      ]);
      expect(result.paths).toEqual([['file:main.js', 'file:lib/util.js']]);
    });
  });

  it('should find a URL by regex and the page that loads its script, through a retained summary', async () => {
    await withTempDir(async (tmp) => {
      const ledger = createSessionLedger() as unknown as LedgerAccess;
      const summary = await analysis(electronApp(tmp), ledger, 'summary');
      const ref = { kind: 'retained-evidence', evidence_id: summary.evidence_id };
      // The summary was returned, not retained by executeTool; a server retains it. Retain it here.
      (ledger as unknown as { retain(r: EvidenceRecord): void }).retain(summary);
      const { trace: result } = await trace(ref, { kind: 'url', value: '^https://api\\.', match: 'regex' }, ledger);
      expect(result.sites.map((s) => [s.node_id, s.detail, s.line])).toEqual([
        ['file:renderer.js', 'https://api.example.com/v1/notes', 2],
      ]);
      expect(result.pages).toEqual(['file:index.html']);
    });
  });

  it('should refuse Evidence of another operation and an invalid pattern with invalid_request', async () => {
    await withTempDir(async (tmp) => {
      const parent = await analysis(electronApp(tmp));
      const other = await trace(parent, { kind: 'string', value: 'notes:save' });
      const wrong = await executeTool(
        traceApplicationFeatureTool,
        { application: other.record, seed: { kind: 'string', value: 'x' } },
        quietToolContext(),
      ).catch((e: unknown) => e);
      expect(isReaError(wrong) && [wrong.code, wrong.details['reason']]).toEqual([
        'invalid_request',
        'wrong-operation',
      ]);
      const pattern = await executeTool(
        traceApplicationFeatureTool,
        { application: parent, seed: { kind: 'string', value: '(', match: 'regex' } },
        quietToolContext(),
      ).catch((e: unknown) => e);
      expect(isReaError(pattern) && [pattern.code, pattern.details['reason']]).toEqual([
        'invalid_request',
        'invalid-regex',
      ]);
    });
  });
});
