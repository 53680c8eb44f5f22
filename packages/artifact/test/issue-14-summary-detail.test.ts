// detail "summary" retains exactly the record detail "complete" answers (same id) and answers with the
// inspect_analysis_view summary Evidence of it, for every artifact tool that takes detail.
import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { computeEvidenceId, parseEvidence, sealAnalysisView, selectAnalysisView } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { inspectArtifactTool, inspectBinaryLayoutTool } from '@rea/artifact';
import { executeTool } from '@rea/provider-kit';
import type { AnyToolContract, ToolContext } from '@rea/provider-kit';
import { quietToolContext, withTempDir } from '@rea/test-helpers';
import * as fx from './layout/fixtures.js';
import { buildZip } from './helpers/zipWriter.js';

function retaining(retained: EvidenceRecord[]): ToolContext {
  const ledger = {
    resolve: () => {
      throw new Error('unused');
    },
    get: (id: string) => retained.find((record) => record.evidence_id === id),
    retain: (record: EvidenceRecord) => {
      retained.push(record);
      return record;
    },
  };
  return quietToolContext({ ledger });
}

async function record(tool: AnyToolContract, input: unknown, context: ToolContext): Promise<EvidenceRecord> {
  const outcome = await executeTool(tool, input, context);
  if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
  return outcome.record;
}

async function expectSummaryRule(tool: AnyToolContract, input: Record<string, unknown>): Promise<void> {
  const complete = await record(tool, input, retaining([]));
  const retained: EvidenceRecord[] = [];
  const summary = await record(tool, { ...input, detail: 'summary' }, retaining(retained));
  // One complete record for one analysis: the retained parent is the record "complete" answers.
  expect(retained).toHaveLength(1);
  expect(retained[0]).toEqual(complete);
  expect(computeEvidenceId(parseEvidence(retained[0]))).toBe(complete.evidence_id);
  // The answer is the inspect_analysis_view summary of that record, naming it.
  const expected = sealAnalysisView(complete, selectAnalysisView(complete, { view: 'summary' }));
  expect(summary).toEqual(expected);
  expect(summary.operation).toBe('inspect_analysis_view');
  expect(summary.evidence_links).toEqual([complete.evidence_id]);
  expect(summary.normalized_result).toMatchObject({
    view: 'summary',
    parent_evidence_id: complete.evidence_id,
    parent_operation: tool.name,
  });
  // Without a retaining session the summary is refused up front.
  await expect(executeTool(tool, { ...input, detail: 'summary' }, quietToolContext())).rejects.toMatchObject({
    code: 'capability_unavailable',
    details: { capability: 'session-retention' },
  });
}

describe('detail "summary" (issue 14)', () => {
  it('should retain the complete layout record and answer with its inspect_analysis_view summary', async () => {
    await expectSummaryRule(inspectBinaryLayoutTool, { path: fx.elfX64Pie() });
  });

  it('should do the same for a single facet of the layout', async () => {
    await expectSummaryRule(inspectBinaryLayoutTool, { path: fx.elfX64Pie(), facet: 'mitigations' });
  });

  it('should retain the complete inventory record and answer with its inspect_analysis_view summary', async () => {
    await withTempDir(async (dir) => {
      const path = join(dir, 'a.zip');
      writeFileSync(
        path,
        buildZip([
          { name: 'a.txt', data: Buffer.from('alpha') },
          { name: 'dir/b.bin', data: Buffer.alloc(300, 7) },
        ]),
      );
      await expectSummaryRule(inspectArtifactTool, { path });
    });
  });
});
