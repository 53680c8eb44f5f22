// The central directory is decoded from megabyte windows by the package itself: every record must
// read as the ZIP library and Info-ZIP read it, every malformed record must be refused with the
// library's own explanation, and extraction must read a selected entry's own bytes, not a block
// around each one.
import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yauzl from 'yauzl';
import type { Entry } from 'yauzl';
import { extractArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { readDirectory } from '../src/inventory/zip.js';
import { buildZip } from './helpers/zipWriter.js';
import { run } from './helpers/exec.js';

/** The library's own records for `bytes`, or the message of the error it stops with. */
function libraryRecords(bytes: Buffer): Promise<Entry[] | string> {
  return new Promise((resolve) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true }, (error, zip) => {
      if (error || !zip) return resolve(String(error?.message));
      const out: Entry[] = [];
      zip.on('entry', (entry: Entry) => {
        out.push(entry);
        zip.readEntry();
      });
      zip.on('end', () => resolve(out));
      zip.on('error', (e: Error) => resolve(e.message));
      zip.readEntry();
    });
  });
}

/** Bytes read by this process so far (every read system call, whichever thread made it). */
const readSoFar = (): number => Number(/rchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

async function expectSameRecords(file: string): Promise<void> {
  const reference = await libraryRecords(readFileSync(file));
  if (typeof reference === 'string') throw new Error(reference);
  const { reader, infos } = await readDirectory(file, 1_000_000);
  reader.close();
  expect(infos.map((i) => [i.crc32, i.compressedSize, i.uncompressedSize, i.compressionMethod, i.encrypted])).toEqual(
    reference.map((e) => [e.crc32, e.compressedSize, e.uncompressedSize, e.compressionMethod, e.isEncrypted()]),
  );
  expect(infos.map((i) => [i.localHeaderOffset, i.nameLength])).toEqual(
    reference.map((e) => [e.relativeOffsetOfLocalHeader, e.fileNameLength]),
  );
  // Names as Info-ZIP itself lists them.
  expect(infos.map((i) => i.name)).toEqual(run('unzip', ['-Z1', file]).replace(/\n$/, '').split('\n'));
}

describe('the central directory decoded from its bytes', () => {
  it('reads every record as the ZIP library and Info-ZIP read it', async () => {
    await withTempDir(async (tmp) => {
      const tree = join(tmp, 'tree');
      mkdirSync(join(tree, 'dir', 'ünïcödé 名前'), { recursive: true });
      mkdirSync(join(tree, 'empty'));
      writeFileSync(join(tree, 'plain.txt'), 'plain text\n'.repeat(50));
      writeFileSync(join(tree, 'dir', 'ünïcödé 名前', 'ファイル.bin'), randomBytes(3000));
      symlinkSync('plain.txt', join(tree, 'link'));
      const infoZip = join(tmp, 'info-zip.zip');
      run('zip', ['-q', '-r', '-y', infoZip, '.'], tree);
      await expectSameRecords(infoZip);

      const data = Buffer.from('same bytes, written every way the format allows\n'.repeat(40));
      const varied = join(tmp, 'varied.zip');
      writeFileSync(
        varied,
        buildZip([
          { name: 'stored.txt', data, method: 0 },
          { name: 'deflated.txt', data },
          { name: 'wide.txt', data, zip64: true },
          { name: 'descriptor.txt', data, dataDescriptor: true },
          { name: 'secret.txt', data, encrypted: true },
          { name: 'tool', data, mode: 0o100755 },
          { name: 'folder/', mode: 0o040755 },
        ]),
      );
      await expectSameRecords(varied);
    });
  });

  it("refuses each malformed record with the library's own explanation", async () => {
    const data = Buffer.from('text of one entry\n'.repeat(20));
    const plain = (): Buffer => buildZip([{ name: 'a.txt', data }]);
    const centralOf = (zip: Buffer): number => zip.readUInt32LE(zip.length - 22 + 16);
    const patched = (zip: Buffer, edit: (zip: Buffer, central: number) => void): Buffer => {
      edit(zip, centralOf(zip));
      return zip;
    };
    const cases: Array<[string, Buffer]> = [
      ['a wrong record signature', patched(plain(), (z, c) => z.writeUInt32LE(0x02014b51, c))],
      ['strong encryption', patched(plain(), (z, c) => z.writeUInt16LE(z.readUInt16LE(c + 8) | 0x41, c + 8))],
      [
        'an extra field longer than its record says',
        patched(buildZip([{ name: 'a.txt', data, zip64: true }]), (z, c) => {
          const extra = c + 46 + z.readUInt16LE(c + 28);
          z.writeUInt16LE(z.readUInt16LE(extra + 2) + 8, extra + 2);
        }),
      ],
      [
        'a zip64 field without the size it stands for',
        patched(buildZip([{ name: 'a.txt', data, zip64: true }]), (z, c) => {
          // The field shrinks to nothing; its bytes become a second, unknown field of the same length.
          const extra = c + 46 + z.readUInt16LE(c + 28);
          const size = z.readUInt16LE(extra + 2);
          z.writeUInt16LE(0, extra + 2);
          z.writeUInt16LE(0x6666, extra + 4);
          z.writeUInt16LE(size - 4, extra + 6);
        }),
      ],
    ];
    // One the library refuses on purpose is read here: a stored entry whose sizes differ is a size
    // contradiction of that entry alone (judged by the integrity policy), not a malformed archive.
    const stored = buildZip([{ name: 'a.txt', data, method: 0, declaredCompressedSize: 7 }]);
    expect(typeof (await libraryRecords(stored))).toBe('string');
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'stored.zip');
      writeFileSync(file, stored);
      const { infos } = await readDirectory(file, 1_000);
      expect(infos.map((i) => [i.name, i.compressionMethod, i.compressedSize, i.uncompressedSize])).toEqual([
        ['a.txt', 0, 7, data.length],
      ]);
    });
    await withTempDir(async (tmp) => {
      for (const [label, bytes] of cases) {
        const expected = await libraryRecords(bytes);
        expect([label, typeof expected]).toEqual([label, 'string']);
        const file = join(tmp, 'bad.zip');
        writeFileSync(file, bytes);
        const problem = (expected as string).replace(/\.$/, '');
        await expect(readDirectory(file, 1_000)).rejects.toMatchObject({
          code: 'unsupported_target',
          details: { reason: 'malformed', problem },
        });
        // An archive held in memory (a nested one) is read the same way.
        await expect(readDirectory(bytes, 1_000)).rejects.toMatchObject({ details: { problem } });
      }
    });
  });

  it("reads a selected entry's own bytes when extracting, not a block around each", async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'scattered.zip');
      // Stored (no compression time), 100 kB each, and every twelfth selected: 1.2 MB apart.
      const specs = Array.from({ length: 120 }, (_, i) => ({
        name: `d${i % 9}/f${i}.bin`,
        data: Buffer.concat([Buffer.from(`entry ${i}\n`), Buffer.alloc(100_000, i)]),
        method: 0 as const,
      }));
      writeFileSync(file, buildZip(specs));
      const select = specs.filter((_, i) => i % 12 === 5).map((s) => s.name);
      const before = readSoFar();
      const { outputDirectory, result } = await extractArtifact(file, { parentDirectory: tmp, select });
      const read = readSoFar() - before;
      expect(result.files.map((f) => f.path).sort()).toEqual([...select].sort());
      for (const name of select) {
        const data = specs.find((s) => s.name === name)!.data;
        expect([name, readFileSync(join(outputDirectory, name)).equals(data)]).toEqual([name, true]);
      }
      // 10 entries of 100 kB, the central directory and the head and tail of the file: about 1.1 MB.
      // A megabyte read around each scattered entry would be over 10 MB.
      expect(read).toBeLessThan(2_000_000);
    });
  });
});
