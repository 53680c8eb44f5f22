// A file is taken for a container only by what the container's own structure says: "koly" alone where a
// DMG's trailer would be, or four integers shaped like an ASAR's pickle sizes with no JSON header after
// them, make no DMG or ASAR of a file, which is listed as the file it is.
import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withTempDir } from '@rea/test-helpers';
import { inspectArtifact } from '@rea/artifact';

describe('format detection', () => {
  it('should list a file that only carries "koly" where a DMG trailer would be as a file', async () => {
    await withTempDir(async (dir) => {
      const tail = Buffer.alloc(512, 0x20);
      tail.write('koly is a word here, not a trailer', 0, 'latin1');
      const path = join(dir, 'notes.bin');
      writeFileSync(path, Buffer.concat([Buffer.alloc(2048, 0x41), tail]));
      const result = await inspectArtifact(path, { platform: 'linux' });
      expect(result.inventory).toMatchObject({ format: 'file', entry_count: 1 });
    });
  });

  it('should list a file that starts with pickle-like integers but no JSON header as a file', async () => {
    await withTempDir(async (dir) => {
      const head = Buffer.alloc(64);
      head.writeUInt32LE(4, 0);
      head.writeUInt32LE(40, 4);
      head.writeUInt32LE(36, 8);
      head.writeInt32LE(20, 12);
      head.write('not a json header...', 16, 'latin1');
      const path = join(dir, 'ints.bin');
      writeFileSync(path, head);
      const result = await inspectArtifact(path);
      expect(result.inventory).toMatchObject({ format: 'file', entry_count: 1 });
    });
  });
});
