// A ZIP need not fill its file: a self-extractor or a script can sit in front of it (its offsets then
// count from the archive's own start, not the file's) and data can follow its end record. unzip
// reads both; so does REA, and says how many bytes lay outside the archive. Held against unzip's own
// reading of the same files, on archives made by Info-ZIP's zip.
import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifactTools, extractArtifact, inspectArtifact, openZipEntries } from '@rea/artifact';
import { executeTool } from '@rea/provider-kit';
import { quietToolContext, withTempDir } from '@rea/test-helpers';
import { digestWorkerThreshold } from '../src/inventory/digestTasks.js';
import { buildZip } from './helpers/zipWriter.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const STUB = Buffer.from('#!/bin/sh\nexec java -jar "$0" "$@"\n'.padEnd(700, '#'));

/** What unzip reads from `archive`: each file's name and SHA-256 (its warnings about extra bytes aside). */
function unzipRead(archive: string): Map<string, string> {
  const names = spawnSync('unzip', ['-Z1', archive], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
  const out = new Map<string, string>();
  for (const name of names.filter((n) => !n.endsWith('/'))) {
    const run = spawnSync('unzip', ['-p', archive, name], { maxBuffer: 1 << 26 });
    out.set(name, sha(run.stdout));
  }
  return out;
}

/** An archive of text, noise and a folder made by zip, as bytes. */
function made(tmp: string): Buffer {
  const source = join(tmp, 'source');
  execFileSync('mkdir', ['-p', join(source, 'docs')]);
  writeFileSync(join(source, 'docs', 'readme.txt'), 'read me\n'.repeat(500));
  writeFileSync(join(source, 'noise.bin'), randomBytes(40_000));
  writeFileSync(join(source, 'main.js'), 'console.log("hello");\n');
  const archive = join(tmp, 'made.zip');
  execFileSync('zip', ['-q', '-r', archive, '.'], { cwd: source });
  return readFileSync(archive);
}

/** `size` zero bytes with little-endian fields: [offset, width in bytes, value]. */
function fields(size: number, values: [number, 2 | 4 | 8, number][]): Buffer {
  const out = Buffer.alloc(size);
  for (const [at, width, value] of values) {
    if (width === 2) out.writeUInt16LE(value, at);
    else if (width === 4) out.writeUInt32LE(value, at);
    else out.writeBigUInt64LE(BigInt(value), at);
  }
  return out;
}

describe('a ZIP with bytes before or after it in its file', () => {
  it('should read what unzip reads, and name the bytes outside the archive', async () => {
    await withTempDir(async (tmp) => {
      const plain = made(tmp);
      // A spurious end-record signature in the appended bytes is not taken for the archive's: its
      // directory does not check. (unzip takes it, and reads nothing: that case is held to the plain
      // archive as unzip reads it.)
      const spurious = Buffer.concat([Buffer.from('trailer PK\x05\x06'), Buffer.alloc(30, 1)]);
      const cases = {
        appended: { bytes: Buffer.concat([plain, Buffer.from('0123456789')]), start: 0, trailing: 10, unzip: true },
        prefixed: { bytes: Buffer.concat([STUB, plain]), start: STUB.length, trailing: 0, unzip: true },
        both: {
          bytes: Buffer.concat([STUB, plain, Buffer.from('signed')]),
          start: STUB.length,
          trailing: 6,
          unzip: true,
        },
        spurious: {
          bytes: Buffer.concat([STUB, plain, spurious]),
          start: STUB.length,
          trailing: spurious.length,
          unzip: false,
        },
      };
      const reference = await inspectArtifact(join(tmp, 'made.zip'));
      expect(reference.limitations.map((l) => l.kind)).not.toContain('archive-prefix');
      for (const [name, { bytes, start, trailing, unzip }] of Object.entries(cases)) {
        const file = join(tmp, `${name}.zip`);
        writeFileSync(file, bytes);
        const outcome = await inspectArtifact(file);
        expect(outcome.subject.sha256).toBe(sha(bytes));
        expect(outcome.inventory.format).toBe('zip');
        expect(outcome.inventory.entries).toEqual(reference.inventory.entries);
        const read = new Map(outcome.inventory.entries.filter((e) => e.kind === 'file').map((e) => [e.path, e.sha256]));
        expect(read).toEqual(unzipRead(unzip ? file : join(tmp, 'made.zip')));
        expect(read.size).toBe(3);
        const kinds = outcome.limitations.map((l) => l.kind);
        expect(kinds.includes('archive-prefix')).toBe(start > 0);
        expect(kinds.includes('archive-trailing-data')).toBe(trailing > 0);
        if (start > 0)
          expect(outcome.limitations.find((l) => l.kind === 'archive-prefix')!.message).toContain(`${start} bytes`);
        if (trailing > 0)
          expect(outcome.limitations.find((l) => l.kind === 'archive-trailing-data')!.message).toContain(
            `${trailing} bytes`,
          );
      }
    });
  });

  it('should extract from a prefixed archive the bytes unzip extracts', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'installer.bin');
      writeFileSync(file, Buffer.concat([STUB, made(tmp), Buffer.from('signature')]));
      const { outputDirectory, limitations } = await extractArtifact(file, { parentDirectory: tmp });
      const expected = unzipRead(file);
      expect(expected.size).toBe(3);
      for (const [name, digest] of expected) expect(sha(readFileSync(join(outputDirectory, name)))).toBe(digest);
      expect(readdirSync(outputDirectory).sort()).toEqual(['docs', 'main.js', 'noise.bin']);
      // What was left out is said, with its size: the stub in front and the 9 bytes after.
      expect(limitations.map((l) => l.kind)).toEqual(['archive-prefix', 'archive-trailing-data']);
      expect(limitations[0]!.message).toContain(`starts ${STUB.length} bytes into the file`);
      expect(limitations[0]!.message).toContain('were not extracted');
      expect(limitations[1]!.message).toContain('9 bytes follow');
      // The tool's Evidence states them; an archive that fills its file has none.
      const tool = artifactTools.find((t) => t.name === 'extract_artifact')!;
      const outcome = await executeTool(tool, { path: file }, quietToolContext({ ledger: null }));
      if (outcome.kind !== 'evidence') throw new Error('expected evidence');
      expect(outcome.record.limitations.map((l) => l.kind)).toEqual(['archive-prefix', 'archive-trailing-data']);
      rmSync(String((outcome.record as { local?: { output_directory?: string } }).local?.output_directory), {
        recursive: true,
        force: true,
      });
      const plain = join(tmp, 'plain.zip');
      writeFileSync(plain, made(tmp));
      expect((await extractArtifact(plain, { parentDirectory: tmp })).limitations).toEqual([]);
    });
  });

  it('should give the file offsets of local headers to readers of the entries', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'prefixed.zip');
      const bytes = Buffer.concat([STUB, made(tmp)]);
      writeFileSync(file, bytes);
      const zip = await openZipEntries(file);
      try {
        const files = zip.entries.filter((e) => e.kind === 'file');
        expect(files.length).toBe(3);
        for (const entry of files) {
          expect(entry.localHeaderOffset).toBeGreaterThanOrEqual(STUB.length);
          expect(bytes.readUInt32LE(entry.localHeaderOffset)).toBe(0x04034b50);
        }
        const read = await zip.read(['main.js'], { maxEntryBytes: 1 << 20, maxTotalBytes: 1 << 20 });
        expect(read.contents.get('main.js')!.bytes.toString()).toBe('console.log("hello");\n');
      } finally {
        zip.close();
      }
    });
  });

  it('should read a prefixed archive the same on worker threads, and a nested one with data after it', async () => {
    await withTempDir(async (tmp) => {
      const specs = Array.from({ length: 40 }, (_, i) => ({ name: `part/${i}.bin`, data: randomBytes(3000 + i) }));
      // Nested archives are recognised by their first bytes: this one starts as a ZIP, with data after it.
      const inner = Buffer.concat([buildZip(specs), Buffer.from('tail')]);
      const file = join(tmp, 'outer.zip');
      writeFileSync(
        file,
        Buffer.concat([STUB, buildZip([...specs, { name: 'inner.jar', data: inner }]), Buffer.from('x')]),
      );
      const usual = digestWorkerThreshold.bytes;
      try {
        digestWorkerThreshold.bytes = Number.POSITIVE_INFINITY;
        const alone = await inspectArtifact(file);
        digestWorkerThreshold.bytes = 0;
        const pooled = await inspectArtifact(file);
        expect(pooled).toEqual(alone);
        const byPath = new Map(alone.inventory.entries.map((e) => [e.path, e.sha256]));
        for (const spec of specs) {
          expect(byPath.get(spec.name)).toBe(sha(spec.data));
          expect(byPath.get(`inner.jar!/${spec.name}`)).toBe(sha(spec.data));
        }
        const scoped = alone.limitations.filter((l) => l.scope === 'inner.jar').map((l) => l.kind);
        expect(scoped).toEqual(['archive-trailing-data']);
        expect(
          alone.limitations
            .filter((l) => l.scope === undefined)
            .map((l) => l.kind)
            .sort(),
        ).toEqual(['archive-prefix', 'archive-trailing-data']);
      } finally {
        digestWorkerThreshold.bytes = usual;
      }
    });
  });

  it('should still refuse an end record whose directory is not where it says', async () => {
    await withTempDir(async (tmp) => {
      const plain = made(tmp);
      // The directory's stated offset moved past where it lies: no start of the archive explains it.
      const moved = Buffer.from(plain);
      const end = moved.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
      moved.writeUInt32LE(moved.readUInt32LE(end + 16) + 5, end + 16);
      const file = join(tmp, 'moved.zip');
      writeFileSync(file, moved);
      await expect(inspectArtifact(file)).rejects.toMatchObject({
        code: 'unsupported_target',
        details: { reason: 'malformed' },
      });
    });
  });

  it('should not take a file for a ZIP because end-record-like bytes lie near its end', async () => {
    await withTempDir(async (tmp) => {
      const elf = Buffer.concat([Buffer.from('\x7fELF'), Buffer.alloc(2000, 0x90)]);
      // A record on disk 45, as machine code that handles ZIPs holds; an empty record with bytes after it.
      const onDisk = fields(22, [
        [0, 4, 0x06054b50],
        [4, 2, 45],
        [8, 2, 3],
        [10, 2, 3],
      ]);
      const empty = fields(22, [[0, 4, 0x06054b50]]);
      const made_ = made(tmp);
      const tarred = join(tmp, 'carried.tar');
      execFileSync('tar', ['-cf', tarred, '-C', tmp, 'made.zip']);
      // A DMG image whose data holds a ZIP near its trailer: a DMG image, not a ZIP.
      const koly = Buffer.alloc(512);
      koly.write('koly', 0, 'latin1');
      koly.writeUInt32BE(4, 4); // version
      koly.writeUInt32BE(512, 8); // the trailer's length
      const dmgData = Buffer.alloc(4096, 0x11);
      const files = {
        'disk.bin': Buffer.concat([elf, onDisk, Buffer.alloc(300, 0x90)]),
        'empty-record.bin': Buffer.concat([elf, empty, Buffer.alloc(300, 0x90)]),
        'carried.tar': readFileSync(tarred),
        'image.dmg': Buffer.concat([dmgData, made_, Buffer.alloc(1000), koly]),
      };
      for (const [name, bytes] of Object.entries(files)) {
        const file = join(tmp, name);
        writeFileSync(file, bytes);
        const outcome = await inspectArtifact(file).catch((e: unknown) => e);
        if (name === 'image.dmg') {
          // Read as the DMG it ends as (inventoried on macOS only).
          if ((outcome as { code?: string }).code !== undefined)
            expect(outcome).toMatchObject({ code: 'capability_unavailable' });
          else expect((outcome as { inventory: { format: string } }).inventory.format).toBe('dmg');
          continue;
        }
        expect((outcome as { inventory: { format: string } }).inventory.format).toBe('file');
      }
    });
  });

  it('should read the archive a spurious empty end record follows, and say bytes follow it', async () => {
    await withTempDir(async (tmp) => {
      const plain = made(tmp);
      const empty = fields(22, [[0, 4, 0x06054b50]]);
      const file = join(tmp, 'hidden.zip');
      writeFileSync(file, Buffer.concat([plain, Buffer.from('JUNK'.repeat(10)), empty, Buffer.from('MORE')]));
      const outcome = await inspectArtifact(file);
      const reference = await inspectArtifact(join(tmp, 'made.zip'));
      expect(outcome.inventory.entries).toEqual(reference.inventory.entries);
      const trailing = outcome.limitations.find((l) => l.kind === 'archive-trailing-data');
      expect(trailing?.message).toContain(`${40 + 22 + 4} bytes`);
    });
  });

  it('should read a zip64 end record whose 32-bit fields are not saturated, as before', async () => {
    await withTempDir(async (tmp) => {
      // A first directory record of 76 bytes: a boundary where the zip64 records end.
      const plain = buildZip([
        { name: 'a'.repeat(30), data: Buffer.from('first file\n'), method: 0 },
        { name: 'second.txt', data: Buffer.from('second file\n'), method: 0 },
      ]);
      const at = plain.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
      const count = plain.readUInt16LE(at + 10);
      const directorySize = plain.readUInt32LE(at + 12);
      const directoryOffset = plain.readUInt32LE(at + 16);
      const record = fields(56, [
        [0, 4, 0x06064b50],
        [4, 8, 44],
        [12, 2, 45],
        [14, 2, 45],
        [24, 8, count],
        [32, 8, count],
        [40, 8, directorySize],
        [48, 8, directoryOffset],
      ]);
      const locator = fields(20, [
        [0, 4, 0x07064b50],
        [8, 8, at],
        [16, 4, 1],
      ]);
      const file = join(tmp, 'zip64.zip');
      writeFileSync(file, Buffer.concat([plain.subarray(0, at), record, locator, plain.subarray(at)]));
      const outcome = await inspectArtifact(file);
      expect(outcome.inventory.entries.map((e) => [e.path, e.integrity])).toEqual([
        ['a'.repeat(30), 'verified'],
        ['second.txt', 'verified'],
      ]);
      expect(outcome.limitations).toEqual([]);
    });
  });

  it('should take no entry data from bytes after the archive, on worker threads or not', async () => {
    await withTempDir(async (tmp) => {
      // The last entry's local extra field spans the directory and end record: its data would lie in the
      // bytes appended after the archive.
      const big = Array.from({ length: 20 }, (_, i) => ({
        name: `big${i}`,
        data: randomBytes(900_000),
        method: 0 as const,
      }));
      const body = buildZip(big);
      const end = body.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
      const entries = body.readUInt16LE(end + 10);
      const directory = body.subarray(body.readUInt32LE(end + 16), end);
      const head = body.subarray(0, body.readUInt32LE(end + 16));
      const secret = Buffer.from('SECRET-FROM-TRAILING-DATA\n');
      const name = Buffer.from('x.txt');
      const { crc32 } = await import('node:zlib');
      const crc = crc32(secret) >>> 0;
      const pad = 200;
      const xOffset = head.length;
      const record = fields(46, [
        [0, 4, 0x02014b50],
        [4, 2, 20],
        [6, 2, 20],
        [16, 4, crc],
        [20, 4, secret.length],
        [24, 4, secret.length],
        [28, 2, name.length],
        [42, 4, xOffset],
      ]);
      const newDirectory = Buffer.concat([directory, record, name]);
      const directoryOffset = xOffset + 30 + name.length + pad;
      const eocd = fields(22, [
        [0, 4, 0x06054b50],
        [8, 2, entries + 1],
        [10, 2, entries + 1],
        [12, 4, newDirectory.length],
        [16, 4, directoryOffset],
      ]);
      const dataStart = directoryOffset + newDirectory.length + 22 + 10;
      const local = fields(30, [
        [0, 4, 0x04034b50],
        [4, 2, 20],
        [14, 4, crc],
        [18, 4, secret.length],
        [22, 4, secret.length],
        [26, 2, name.length],
        [28, 2, dataStart - (xOffset + 30 + name.length)],
      ]);
      const bytes = Buffer.concat([
        head,
        local,
        name,
        Buffer.alloc(pad),
        newDirectory,
        eocd,
        Buffer.alloc(10, 0x47),
        secret,
      ]);
      const file = join(tmp, 'overlap.zip');
      writeFileSync(file, bytes);
      const usual = digestWorkerThreshold.bytes;
      try {
        for (const threshold of [Number.POSITIVE_INFINITY, 0]) {
          digestWorkerThreshold.bytes = threshold;
          await expect(inspectArtifact(file)).rejects.toMatchObject({
            code: 'unsupported_target',
            message: expect.stringContaining('overflows'),
          });
        }
      } finally {
        digestWorkerThreshold.bytes = usual;
      }
    });
  });
});
