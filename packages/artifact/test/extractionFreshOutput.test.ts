import { describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import { extractArtifact, extractArtifactTool } from '@rea/artifact';
import { executeTool } from '@rea/provider-kit';
import { quietToolContext, withTempDir } from '@rea/test-helpers';
import { simpleAsar } from './helpers/asarWriter.js';
import { buildZip } from './helpers/zipWriter.js';

/** An ASAR of many small modules: removing or replacing its output takes a while. */
function manyModules(count: number): Buffer {
  return simpleAsar(Object.fromEntries(Array.from({ length: count }, (_, i) => [`m${i}.js`, Buffer.from(`m ${i}`)])));
}

/** Runs extract_artifact; resolves to its output directory, or to the error's code. */
async function toolCall(input: Record<string, unknown>): Promise<{ dir?: string; code?: string }> {
  try {
    const outcome = await executeTool(extractArtifactTool, input, quietToolContext());
    if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
    return { dir: String((outcome.record.local as Record<string, unknown>)['output_directory']) };
  } catch (error) {
    return { code: isReaError(error) ? error.code : 'thrown' };
  }
}

describe('extract_artifact output directories', () => {
  it('should give every call a fresh directory and never touch an earlier output', async () => {
    await withTempDir(async (tmp) => {
      const archive = join(tmp, 'app.asar');
      writeFileSync(archive, manyModules(20));
      const directories: string[] = [];
      try {
        const first = await toolCall({ path: archive });
        directories.push(first.dir!);
        writeFileSync(join(first.dir!, 'notes.txt'), 'added by the analyst');
        const second = await toolCall({ path: archive });
        directories.push(second.dir!);
        expect(second.dir).not.toBe(first.dir);
        expect(readFileSync(join(first.dir!, 'notes.txt'), 'utf8')).toBe('added by the analyst');
        expect(readdirSync(first.dir!)).toHaveLength(21);
        expect(readdirSync(second.dir!)).toHaveLength(20);
      } finally {
        for (const dir of directories) rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('should complete every one of several concurrent extractions of one archive', async () => {
    await withTempDir(async (tmp) => {
      const archive = join(tmp, 'mid.asar');
      writeFileSync(archive, manyModules(3000));
      const calls = await Promise.all(Array.from({ length: 6 }, () => toolCall({ path: archive })));
      try {
        expect(calls.map((c) => c.code)).toEqual(Array(6).fill(undefined));
        expect(new Set(calls.map((c) => c.dir)).size).toBe(6);
        for (const { dir } of calls) expect(readdirSync(dir!)).toHaveLength(3000);
      } finally {
        for (const { dir } of calls) if (dir) rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('should name an output after outputKey only while that name is free, never replacing it', async () => {
    await withTempDir(async (tmp) => {
      const archive = join(tmp, 'mid.asar');
      writeFileSync(archive, manyModules(3000));
      const parent = join(tmp, 'out');
      mkdirSync(parent);
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, () => extractArtifact(archive, { parentDirectory: parent, outputKey: 'k1' })),
      );
      const named = join(parent, 'rea-extract-k1');
      expect(outcomes.filter((o) => o.outputDirectory === named)).toHaveLength(1);
      expect(new Set(outcomes.map((o) => o.outputDirectory)).size).toBe(6);
      writeFileSync(join(named, 'notes.txt'), 'added by the analyst');
      const again = await extractArtifact(archive, { parentDirectory: parent, outputKey: 'k1' });
      expect(again.outputDirectory).not.toBe(named);
      expect(existsSync(join(named, 'notes.txt'))).toBe(true);
      for (const { outputDirectory } of [...outcomes, again])
        expect(readdirSync(outputDirectory).length).toBeGreaterThanOrEqual(3000);
    });
  });
});

describe('extraction of an entry named like a nested path', () => {
  it('should refuse a literal "inner.zip!/inner.txt" and extract the nested entry it imitates when selected', async () => {
    await withTempDir(async (tmp) => {
      const archive = join(tmp, 'outer.zip');
      writeFileSync(
        archive,
        buildZip([
          { name: 'inner.zip', data: buildZip([{ name: 'inner.txt', data: Buffer.from('real') }]) },
          { name: 'inner.zip!/inner.txt', data: Buffer.from('impostor') },
        ]),
      );
      const parent = join(tmp, 'out');
      mkdirSync(parent);
      await expect(extractArtifact(archive, { parentDirectory: parent })).rejects.toMatchObject({
        code: 'unsupported_target',
        details: { reason: 'unsafe-path', problem: 'nested-separator', path: 'inner.zip!/inner.txt' },
      });
      expect(readdirSync(parent)).toEqual([]);
      const { outputDirectory } = await extractArtifact(archive, {
        parentDirectory: parent,
        select: ['inner.zip!/inner.txt'],
      });
      expect(readFileSync(join(outputDirectory, 'inner.zip!', 'inner.txt'), 'utf8')).toBe('real');
    });
  });
});

describe('extraction ratio refusals', () => {
  it('should refuse a declared bomb before writing with its declared ratio, and leave earlier outputs alone', async () => {
    await withTempDir(async (tmp) => {
      const archive = join(tmp, 'bomb.zip');
      const zeros = Buffer.alloc(64 * 1024 * 1024);
      writeFileSync(archive, buildZip([{ name: 'zeros.bin', data: zeros, zip64: true }]));
      const compressed = (await import('node:zlib')).deflateRawSync(zeros).length;
      const parent = join(tmp, 'out');
      mkdirSync(parent);
      const error = await extractArtifact(archive, { parentDirectory: parent }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'resource_constraint',
        details: {
          budget: 'max_ratio',
          limit: 200,
          observed: Math.floor(zeros.length / compressed),
          declared_size: zeros.length,
          compressed_size: compressed,
        },
      });
      expect((error as { details: { observed: number } }).details.observed).toBeGreaterThan(1000);
      expect((error as Error).message).toMatch(/declares 67108864 bytes/);
      expect((error as { remediation: string }).remediation).toMatch(/earlier extractions' directories are untouched/);
    });
  });
});
