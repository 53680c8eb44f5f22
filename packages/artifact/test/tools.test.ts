import { describe, expect, it } from '@jest/globals';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ReaError, parseEvidence } from '@rea/evidence';
import type { EvidenceRecord, RetainedEvidenceRef } from '@rea/evidence';
import { executeTool, validateProvider } from '@rea/provider-kit';
import type { LedgerAccess, ToolContext } from '@rea/provider-kit';
import {
  artifactTools,
  compareArtifactRecords,
  compareArtifactsTool,
  createArtifactProvider,
  extractArtifactTool,
  inspectArtifactTool,
} from '@rea/artifact';
import { quietToolContext, withTempDir } from '@rea/test-helpers';
import { buildZip } from './helpers/zipWriter.js';

/** An in-memory ledger like a server session's: resolve, get and retain. */
function memoryLedger(): LedgerAccess & { records: Map<string, EvidenceRecord> } {
  const records = new Map<string, EvidenceRecord>();
  return {
    records,
    retain: (record) => (records.set(record.evidence_id, record), record),
    get: (id) => records.get(id),
    resolve(ref: RetainedEvidenceRef) {
      const record = records.get(ref.evidence_id);
      if (!record)
        throw new ReaError('not_found', `No retained ${ref.evidence_id}.`, {
          details: { reason: 'missing', evidence_id: ref.evidence_id },
        });
      return record;
    },
  };
}

function context(ledger: LedgerAccess | null = null): ToolContext {
  return quietToolContext({ ledger });
}

async function evidence(
  tool: typeof inspectArtifactTool | typeof compareArtifactsTool | typeof extractArtifactTool,
  input: unknown,
  ctx = context(),
): Promise<EvidenceRecord> {
  const outcome = await executeTool(tool, input, ctx);
  if (outcome.kind !== 'evidence') throw new Error('expected evidence');
  return parseEvidence(outcome.record);
}

const v1 = [
  { name: 'same.txt', data: Buffer.from('same') },
  { name: 'changed.txt', data: Buffer.from('one') },
  { name: 'removed.txt', data: Buffer.from('gone') },
  { name: 'flaky.txt', data: Buffer.from('flaky') },
];
const v2 = [
  { name: 'same.txt', data: Buffer.from('same') },
  { name: 'changed.txt', data: Buffer.from('two') },
  { name: 'added.txt', data: Buffer.from('new') },
  { name: 'flaky.txt', data: Buffer.from('flaky'), crc: 7 },
];

describe('the artifact tools', () => {
  it('should produce verifiable inspect_artifact Evidence whose id does not depend on where the file is', async () => {
    await withTempDir(async (tmp) => {
      const bytes = buildZip(v1);
      writeFileSync(join(tmp, 'a.zip'), bytes);
      writeFileSync(join(tmp, 'b.zip'), bytes);
      const a = await evidence(inspectArtifactTool, { path: join(tmp, 'a.zip') });
      const b = await evidence(inspectArtifactTool, { path: join(tmp, 'b.zip') });
      expect(a.operation).toBe('inspect_artifact');
      expect(a.provider.id).toBe('artifact');
      expect(a.local).toEqual({ path: join(tmp, 'a.zip') });
      expect(a.evidence_id).toBe(b.evidence_id);
    });
  });

  it('should retain the complete record and return its summary for detail "summary"', async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, 'a.zip'), buildZip(v1));
      await expect(
        executeTool(inspectArtifactTool, { path: join(tmp, 'a.zip'), detail: 'summary' }, context()),
      ).rejects.toMatchObject({ code: 'capability_unavailable' });
      const ledger = memoryLedger();
      const summary = await evidence(
        inspectArtifactTool,
        { path: join(tmp, 'a.zip'), detail: 'summary' },
        context(ledger),
      );
      const result = summary.normalized_result as { view: string; parent_evidence_id: string };
      expect(summary.operation).toBe('inspect_analysis_view');
      expect(result).toMatchObject({ view: 'summary', parent_operation: 'inspect_artifact' });
      expect(summary.evidence_links).toEqual([result.parent_evidence_id]);
      const parent = ledger.records.get(result.parent_evidence_id)!;
      expect(parseEvidence(parent).normalized_result).toMatchObject({ view: 'complete', entry_count: 4 });
    });
  });

  it('should compare inline and retained inventories, classifying contradicted entries as contradictions', async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, 'v1.zip'), buildZip(v1));
      writeFileSync(join(tmp, 'v2.zip'), buildZip(v2));
      const ledger = memoryLedger();
      const ctx = context(ledger);
      const left = await evidence(inspectArtifactTool, { path: join(tmp, 'v1.zip') }, ctx);
      const right = await evidence(
        inspectArtifactTool,
        { path: join(tmp, 'v2.zip'), integrity_policy: 'record-and-continue' },
        ctx,
      );
      ledger.retain(right);
      const record = await evidence(
        compareArtifactsTool,
        { left, right: { kind: 'retained-evidence', evidence_id: right.evidence_id } },
        ctx,
      );
      const result = record.normalized_result as Record<string, Array<{ path: string }>>;
      const paths = (key: string): string[] => result[key]!.map((e) => e.path);
      expect([paths('added'), paths('removed'), paths('changed'), paths('unchanged'), paths('contradictions')]).toEqual(
        [['added.txt'], ['removed.txt'], ['changed.txt'], ['same.txt'], ['flaky.txt']],
      );
      expect(record.evidence_links).toEqual([left.evidence_id, right.evidence_id].sort());
      expect(await compareArtifactRecords(left, right)).toEqual(record.normalized_result);
    });
  });

  it('should refuse a tampered record, a missing reference and a record of another operation', async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, 'v1.zip'), buildZip(v1));
      const left = await evidence(inspectArtifactTool, { path: join(tmp, 'v1.zip') });
      const tampered = { ...left, normalized_result: { ...(left.normalized_result as object), entry_count: 99 } };
      await expect(executeTool(compareArtifactsTool, { left, right: tampered }, context())).rejects.toMatchObject({
        code: 'evidence_integrity_mismatch',
      });
      const missing = `ev_${'a'.repeat(64)}`;
      await expect(
        executeTool(
          compareArtifactsTool,
          { left, right: { kind: 'retained-evidence', evidence_id: missing } },
          context(memoryLedger()),
        ),
      ).rejects.toMatchObject({
        code: 'not_found',
        details: { reason: 'missing', evidence_id: missing },
      });
      const comparison = await evidence(compareArtifactsTool, { left, right: left });
      await expect(executeTool(compareArtifactsTool, { left, right: comparison }, context())).rejects.toMatchObject({
        code: 'invalid_request',
        details: { reason: 'wrong-operation' },
      });
    });
  });

  it('should extract through the tool into a fresh 0700 directory reported as a local fact', async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, 'v1.zip'), buildZip(v1));
      const record = await evidence(extractArtifactTool, { path: join(tmp, 'v1.zip'), select: ['same.txt'] });
      const dir = (record.local as { output_directory: string }).output_directory;
      try {
        expect(statSync(dir).mode & 0o777).toBe(0o700);
        expect(record.normalized_result).toMatchObject({
          format: 'zip',
          files: [{ path: 'same.txt', integrity: 'verified' }],
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('should be a valid tools provider carrying the sorted container tools', async () => {
    const provider = createArtifactProvider();
    expect(() => validateProvider(provider)).not.toThrow();
    expect(provider.kind).toBe('tools');
    const names = provider.tools().map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['compare_artifacts', 'extract_artifact', 'inspect_artifact']));
    expect(artifactTools.map((t) => t.name)).toEqual(names);
    await expect(provider.probe()).resolves.toMatchObject({ status: 'ready' });
    expect(extractArtifactTool.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(extractArtifactTool.effects.writesFilesystem).toBe(true);
    expect(inspectArtifactTool.effects.launchesProcess).toBe(true);
  });
});
