import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isReaError, parseEvidence } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { BinaryLayoutResultSchema, artifactTools, inspectBinaryLayoutTool } from '@rea/artifact';
import type { BinaryLayoutResult } from '@rea/artifact';
import { executeTool } from '@rea/provider-kit';
import type { ToolContext } from '@rea/provider-kit';
import { quietToolContext, skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';
import * as fx from './fixtures.js';
import { readElfReference, readPltLabels } from './reference.js';

function context(retained?: EvidenceRecord[]): ToolContext {
  const ledger = retained
    ? {
        resolve: () => {
          throw new Error('unused');
        },
        get: (id: string) => retained.find((r) => r.evidence_id === id),
        retain: (record: EvidenceRecord) => (retained.push(record), record),
      }
    : null;
  return quietToolContext({ ledger });
}

async function run(input: unknown, ctx = context()): Promise<EvidenceRecord> {
  const outcome = await executeTool(inspectBinaryLayoutTool, input, ctx);
  if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
  return outcome.record;
}

async function failure(input: unknown, ctx = context()): Promise<{ code: string; details: Record<string, unknown> }> {
  try {
    await run(input, ctx);
  } catch (error) {
    expect(isReaError(error)).toBe(true);
    return error as { code: string; details: Record<string, unknown> };
  }
  throw new Error('expected a failure');
}

describe('inspect_binary_layout contract', () => {
  it('should be part of the package tool list and declare its effects', () => {
    expect(artifactTools).toContain(inspectBinaryLayoutTool);
    expect(inspectBinaryLayoutTool.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it('should refuse missing paths, directories and non-binaries with typed errors', async () => {
    await withTempDir(async (dir) => {
      expect(await failure({ path: join(dir, 'absent') })).toMatchObject({
        code: 'not_found',
        details: { reason: 'missing' },
      });
      // There but not a file: unsupported, as inspect_artifact, open_binary and rea analyze answer it.
      expect(await failure({ path: dir })).toMatchObject({
        code: 'unsupported_target',
        details: { format: 'directory', reason: 'not-a-file' },
      });
      expect(await failure({ path: '/dev/null' })).toMatchObject({
        code: 'unsupported_target',
        details: { format: 'special', reason: 'not-a-file' },
      });
      writeFileSync(join(dir, 'notes.txt'), 'plain text');
      expect(await failure({ path: join(dir, 'notes.txt') })).toMatchObject({
        code: 'unsupported_target',
        details: { reason: 'unknown-format' },
      });
      expect((await failure({ path: '' })).code).toBe('invalid_request');
      expect((await failure({ path: join(dir, 'x'), facet: 'everything' })).code).toBe('invalid_request');
    });
  });

  it('should refuse detail "summary" without a retaining session', async () => {
    expect((await failure({ path: '/usr/bin/ls', detail: 'summary' })).code).toBe('capability_unavailable');
  });
});

skipUnless(toolsMissing('gcc', 'llvm-readobj', 'objdump'))('inspect_binary_layout on a compiled ELF', () => {
  it('should return sealed Evidence whose subject, addresses and lists agree with the file and llvm-readobj', async () => {
    const path = fx.elfX64Pie();
    const bytes = readFileSync(path);
    const record = await run({ path });
    expect(parseEvidence(record).evidence_id).toBe(record.evidence_id);
    expect(record.subject).toEqual({
      format: 'elf',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      size: bytes.length,
    });
    expect(record.local).toEqual({ path });
    const result = BinaryLayoutResultSchema.parse(record.normalized_result) as BinaryLayoutResult;
    const ref = readElfReference(path);
    expect(result.headers.entry).toBe(`0x${ref.headers.entry.toString(16)}`);
    expect(result.sections.map((s) => [s.name, s.address])).toEqual(
      ref.sections.slice(1).map((s) => [s.name, `0x${s.address.toString(16)}`]),
    );
    const plt = readPltLabels(path);
    const puts = result.imports.find((i) => i.name === 'puts')!;
    expect(puts.address).toBe(`0x${plt.get('puts')!.toString(16)}`);
    expect(result.mitigations).toMatchObject({ nx: true, pie: true, relro: 'full', stack_canary: true });
    expect(result.linkage).toMatchObject({ kind: 'dynamic', needed: ['libc.so.6'] });
    expect(result.counts.symbols).toBe(result.symbols.length);
    // Same bytes elsewhere: the same Evidence id (the path is a machine-local fact).
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, 'copy'), bytes);
      expect((await run({ path: join(dir, 'copy') })).evidence_id).toBe(record.evidence_id);
    });
  });

  it('should return one facet with headers and counts', async () => {
    const record = await run({ path: fx.elfX64Plain(), facet: 'mitigations' });
    const result = record.normalized_result as Record<string, unknown>;
    expect(Object.keys(result).sort()).toEqual(['counts', 'facet', 'headers', 'mitigations', 'view']);
    expect(result['mitigations']).toMatchObject({ nx: false, pie: false, relro: 'none' });
    const linkage = (await run({ path: fx.elfX64Static(), facet: 'linkage' })).normalized_result as Record<
      string,
      unknown
    >;
    expect(linkage['linkage']).toMatchObject({ kind: 'static', interpreter: null, needed: [] });
  });

  it('should retain the complete layout and return its summary for detail "summary"', async () => {
    const retained: EvidenceRecord[] = [];
    const path = fx.elfX64Pie();
    const summary = await run({ path, detail: 'summary' }, context(retained));
    expect(retained).toHaveLength(1);
    const parent = parseEvidence(retained[0]);
    expect(summary.evidence_links).toEqual([parent.evidence_id]);
    const view = summary.normalized_result as {
      parent_evidence_id: string;
      summary: { collections: Record<string, number> };
    };
    expect(summary.operation).toBe('inspect_analysis_view');
    expect(view.parent_evidence_id).toBe(parent.evidence_id);
    expect(view.summary.collections['symbols']).toBe((parent.normalized_result as BinaryLayoutResult).symbols.length);
  });

  it('should record a limitation when PLT stubs are not decoded for the architecture', async () => {
    const record = await run({ path: fx.elfPpcShared() });
    expect(record.limitations.map((l) => l.kind)).toContain('plt-resolution-unsupported');
  });
});
