import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { buildZip } from './helpers/zipWriter.js';
import { run } from './helpers/exec.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

describe('inspectArtifact on directories', () => {
  it('should hash every file as sha256sum does, record symlinks without following them, and expand archives', async () => {
    await withTempDir(async (tmp) => {
      const root = join(tmp, 'tree');
      mkdirSync(join(root, 'sub'), { recursive: true });
      writeFileSync(join(root, 'a.txt'), 'alpha');
      writeFileSync(join(root, 'sub', 'b.bin'), Buffer.alloc(70_000, 7));
      writeFileSync(
        join(root, 'sub', 'lib.jar'),
        buildZip([{ name: 'META-INF/MANIFEST.MF', data: Buffer.from('Manifest-Version: 1.0\n') }]),
      );
      symlinkSync('/etc/passwd', join(root, 'escape'));
      symlinkSync('a.txt', join(root, 'inside'));
      const { inventory, coverage, subject } = await inspectArtifact(root);
      expect(subject.format).toBe('directory');
      const reference = Object.fromEntries(
        run('sh', ['-c', 'find . -type f -print0 | xargs -0 sha256sum'], root)
          .trim()
          .split('\n')
          .map((line) => [line.slice(66).replace(/^\.\//, ''), line.slice(0, 64)]),
      );
      const files = inventory.entries.filter((e) => e.kind === 'file' && !e.path.includes('!/'));
      expect(Object.fromEntries(files.map((e) => [e.path, e.sha256]))).toEqual(reference);
      expect(inventory.entries.find((e) => e.path === 'escape')).toMatchObject({
        kind: 'symlink',
        symlink_target: '/etc/passwd',
        sha256: null,
      });
      expect(inventory.entries.find((e) => e.path === 'sub/lib.jar!/META-INF/MANIFEST.MF')).toMatchObject({
        integrity: 'verified',
      });
      expect(coverage.status).toBe('partial');
      expect(coverage.reasons).toEqual([expect.stringContaining('"escape" points outside')]);
    });
  });

  it('should not call a directory an app bundle without an Info.plist', async () => {
    await withTempDir(async (tmp) => {
      const root = join(tmp, 'Fake.app');
      mkdirSync(root);
      writeFileSync(join(root, 'x'), 'x');
      expect((await inspectArtifact(root)).inventory.package_type).toBeNull();
    });
  });
});

describe('inspectArtifact on single files', () => {
  it('should identify an ELF, a shell script and unknown bytes by magic, hashing the file', async () => {
    await withTempDir(async (tmp) => {
      const script = join(tmp, 'run');
      writeFileSync(script, '#!/bin/sh\necho\n');
      const blob = join(tmp, 'blob');
      writeFileSync(blob, Buffer.from([1, 2, 3]));
      const elf = '/bin/true';
      expect((await inspectArtifact(elf)).inventory.file_type).toBe(
        run('sh', ['-c', `head -c 4 ${elf} | od -An -c`]).includes('E   L   F') ? 'elf' : 'unexpected',
      );
      const outcome = await inspectArtifact(script);
      expect(outcome.inventory).toMatchObject({ format: 'file', file_type: 'shebang-script', entry_count: 1 });
      expect(outcome.subject.sha256).toBe(sha(readFileSync(script)));
      expect(outcome.inventory.entries[0]!.sha256).toBe(run('sha256sum', [script]).slice(0, 64));
      expect((await inspectArtifact(blob)).inventory.file_type).toBe('unknown');
    });
  });

  it('should refuse a missing path with not_found', async () => {
    await expect(inspectArtifact('/nonexistent/artifact.zip')).rejects.toMatchObject({
      code: 'not_found',
      details: { path: '/nonexistent/artifact.zip' },
    });
  });
});

describe('DMG images', () => {
  it('should be capability_unavailable with a remediation off macOS', async () => {
    await withTempDir(async (tmp) => {
      // A UDIF image ends in a 512-byte "koly" trailer.
      const trailer = Buffer.alloc(512);
      trailer.write('koly', 0, 'latin1');
      // Its version (4) and its own length (512), big-endian, as UDIF writes them.
      trailer.writeUInt32BE(4, 4);
      trailer.writeUInt32BE(512, 8);
      const image = join(tmp, 'x.dmg');
      writeFileSync(image, Buffer.concat([Buffer.alloc(4096), trailer]));
      const error = await inspectArtifact(image, { platform: 'linux' }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'capability_unavailable',
        details: { capability: 'dmg', platform: 'linux' },
      });
      expect((error as { remediation: string }).remediation).toMatch(/macOS/);
    });
  });
});
