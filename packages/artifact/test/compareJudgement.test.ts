import { describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEvidence } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import { compareArtifactsTool, inspectArtifactTool } from '@rea/artifact';
import type { ArtifactComparison } from '@rea/artifact';
import { quietToolContext, withTempDir } from '@rea/test-helpers';
import { asarIntegrity, buildAsar, simpleAsar } from './helpers/asarWriter.js';
import { buildZip } from './helpers/zipWriter.js';

async function evidence(tool: typeof inspectArtifactTool | typeof compareArtifactsTool, input: unknown) {
  const outcome = await executeTool(tool, input, quietToolContext({ ledger: null }));
  if (outcome.kind !== 'evidence') throw new Error('expected evidence');
  return parseEvidence(outcome.record);
}

/** Inspects both files with the same options and compares the records through the tool. */
async function compare(left: string, right: string, options: Record<string, unknown> = {}): Promise<EvidenceRecord> {
  const l = await evidence(inspectArtifactTool, { path: left, ...options });
  const r = await evidence(inspectArtifactTool, { path: right, ...options });
  return evidence(compareArtifactsTool, { left: l, right: r });
}

const resultOf = (record: EvidenceRecord): ArtifactComparison => record.normalized_result as ArtifactComparison;

/** An ASAR of one file `name` whose header flags are `flags` (executable, unpacked). */
function oneFileAsar(name: string, bytes: Buffer, flags: Record<string, boolean>): Buffer {
  const unpacked = flags['unpacked'] === true;
  const node = { size: bytes.length, ...(unpacked ? {} : { offset: '0' }), integrity: asarIntegrity(bytes), ...flags };
  return buildAsar({ files: { [name]: node } }, unpacked ? Buffer.alloc(0) : bytes);
}

describe('compare_artifacts judgement', () => {
  it('should not call entries unchanged when their bytes were not read, and carry the partial inputs', async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, 'w1.asar'), simpleAsar({ 'a.txt': Buffer.from('one'), 'b.txt': Buffer.from('two') }));
      writeFileSync(join(tmp, 'w2.asar'), simpleAsar({ 'a.txt': Buffer.from('ONE'), 'b.txt': Buffer.from('TWO') }));
      const record = await compare(join(tmp, 'w1.asar'), join(tmp, 'w2.asar'), { max_bytes: 1 });
      const result = resultOf(record);
      expect(result.unchanged).toEqual([]);
      expect(result.unverified).toEqual([
        { path: 'a.txt', kind: 'file', left_sha256: null, right_sha256: null, reason: 'content-not-read' },
        { path: 'b.txt', kind: 'file', left_sha256: null, right_sha256: null, reason: 'content-not-read' },
      ]);
      expect(record.coverage.status).toBe('partial');
      expect(record.coverage.reasons).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^left inventory: byte budget reached/),
          expect.stringMatching(/^right inventory: byte budget reached/),
        ]),
      );
      expect(record.limitations.map((l) => l.kind)).toEqual(
        expect.arrayContaining(['partial-input', 'content-not-read']),
      );
    });
  });

  it('should not call an unpacked entry unchanged when its companion file is missing on both sides', async () => {
    await withTempDir(async (tmp) => {
      for (const [name, text] of [
        ['v1.asar', 'one'],
        ['v2.asar', 'two'],
      ] as const)
        writeFileSync(join(tmp, name), oneFileAsar('native.node', Buffer.from(text), { unpacked: true }));
      const record = await compare(join(tmp, 'v1.asar'), join(tmp, 'v2.asar'), {
        integrity_policy: 'record-and-continue',
      });
      expect(resultOf(record).unchanged).toEqual([]);
      expect(resultOf(record).unverified).toMatchObject([{ path: 'native.node', reason: 'content-not-read' }]);
      expect(record.coverage.status).toBe('partial');
    });
  });

  it('should report a ZIP entry whose mode changed as changed, naming the mode', async () => {
    await withTempDir(async (tmp) => {
      const data = Buffer.from('#!/bin/sh\necho hi\n');
      writeFileSync(join(tmp, 'v1.zip'), buildZip([{ name: 'run.sh', data, mode: 0o100644 }]));
      writeFileSync(join(tmp, 'v2.zip'), buildZip([{ name: 'run.sh', data, mode: 0o100755 }]));
      const record = await compare(join(tmp, 'v1.zip'), join(tmp, 'v2.zip'));
      expect(resultOf(record).unchanged).toEqual([]);
      expect(resultOf(record).changed).toMatchObject([{ path: 'run.sh', differences: ['mode'] }]);
      expect(record.coverage).toEqual({ status: 'complete', reasons: [] });
    });
  });

  it('should report an ASAR entry whose executable or unpacked flag changed as changed', async () => {
    await withTempDir(async (tmp) => {
      const bytes = Buffer.from('main');
      writeFileSync(join(tmp, 'plain.asar'), oneFileAsar('main.js', bytes, {}));
      writeFileSync(join(tmp, 'exec.asar'), oneFileAsar('main.js', bytes, { executable: true }));
      writeFileSync(join(tmp, 'unpacked.asar'), oneFileAsar('main.js', bytes, { unpacked: true }));
      // The unpacked side has its companion file, so both sides are read and hash the same.
      mkdirSync(join(tmp, 'unpacked.asar.unpacked'));
      writeFileSync(join(tmp, 'unpacked.asar.unpacked', 'main.js'), bytes);
      const executable = await compare(join(tmp, 'plain.asar'), join(tmp, 'exec.asar'));
      expect(resultOf(executable).changed).toMatchObject([{ path: 'main.js', differences: ['mode'] }]);
      const unpacked = await compare(join(tmp, 'plain.asar'), join(tmp, 'unpacked.asar'));
      expect(resultOf(unpacked).changed).toMatchObject([{ path: 'main.js', differences: ['unpacked'] }]);
      expect(resultOf(unpacked).unchanged).toEqual([]);
    });
  });

  it('should flag a literal entry named like a nested path and pair neither of two same-path entries', async () => {
    await withTempDir(async (tmp) => {
      const inner = (text: string) => buildZip([{ name: 'inner.txt', data: Buffer.from(text) }]);
      const impostor = { name: 'inner.zip!/inner.txt', data: Buffer.from('same') };
      writeFileSync(join(tmp, 'v1.zip'), buildZip([{ name: 'inner.zip', data: inner('same') }, impostor]));
      writeFileSync(join(tmp, 'v2.zip'), buildZip([{ name: 'inner.zip', data: inner('evil') }, impostor]));
      const left = await evidence(inspectArtifactTool, { path: join(tmp, 'v1.zip') });
      expect(left.coverage.status).toBe('partial');
      expect(left.limitations).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ kind: 'unsafe-path', scope: 'inner.zip!/inner.txt' }),
          expect.objectContaining({ kind: 'duplicate-path', scope: 'inner.zip!/inner.txt' }),
        ]),
      );
      const record = await compare(join(tmp, 'v1.zip'), join(tmp, 'v2.zip'));
      const result = resultOf(record);
      expect(result.unchanged.map((e) => e.path)).not.toContain('inner.zip!/inner.txt');
      expect(result.unverified).toMatchObject([{ path: 'inner.zip!/inner.txt', reason: 'duplicate-path' }]);
      expect(result.changed.map((e) => e.path)).toEqual(['inner.zip']);
      expect(record.coverage.status).toBe('partial');
    });
  });
});
