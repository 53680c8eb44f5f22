import { describe, expect, it } from '@jest/globals';
import { randomBytes, createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractArtifact, inspectArtifact } from '@rea/artifact';
import type { ArtifactEntry } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { buildZip } from './helpers/zipWriter.js';
import { run } from './helpers/exec.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

function makeTree(dir: string): void {
  mkdirSync(join(dir, 'src', 'deep', 'deeper'), { recursive: true });
  writeFileSync(join(dir, 'README.txt'), 'hello\n'.repeat(1000));
  writeFileSync(join(dir, 'empty'), '');
  writeFileSync(join(dir, 'src', 'random.bin'), randomBytes(300_000));
  writeFileSync(join(dir, 'src', 'deep', 'deeper', 'x.js'), 'console.log(1)\n');
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\necho hi\n');
  chmodSync(join(dir, 'run.sh'), 0o755);
  symlinkSync('src/random.bin', join(dir, 'link'));
}

/**
 * Makes the sample tree under `<tmp>/tree` and zips it with zip(1) into `<tmp>/a.zip` (symlinks stored
 * as links with `storeLinks`, else followed); returns the archive's path.
 */
function zippedTree(tmp: string, storeLinks: boolean): string {
  const tree = join(tmp, 'tree');
  mkdirSync(tree);
  makeTree(tree);
  const zip = join(tmp, 'a.zip');
  run('zip', ['-q', '-r', ...(storeLinks ? ['-y'] : []), zip, '.'], tree);
  return zip;
}

/** Hashes every regular file below `dir` with sha256sum: { relative path → hash }. */
function sha256sums(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const text = run('sh', ['-c', 'find . -type f -print0 | xargs -0 -r sha256sum'], dir);
  for (const line of text.trim().split('\n').filter(Boolean)) {
    const [hash, path] = [line.slice(0, 64), line.slice(66).replace(/^\.\//, '')];
    out[path] = hash;
  }
  return out;
}

describe('inspectArtifact on ZIP archives made by zip(1)', () => {
  it('should list exactly the entries unzip -Z1 lists, with the hashes sha256sum gives the files unzip extracts', async () => {
    await withTempDir(async (tmp) => {
      const zip = zippedTree(tmp, true);
      const { inventory, coverage, subject } = await inspectArtifact(zip);
      expect(coverage.status).toBe('complete');
      expect(subject).toEqual({ format: 'zip', sha256: sha(readFileSync(zip)), size: readFileSync(zip).length });
      const listed = run('unzip', ['-Z1', zip])
        .trim()
        .split('\n')
        .map((n) => n.replace(/\/$/, ''))
        .sort();
      expect(inventory.entries.map((e) => e.path).sort()).toEqual(listed);
      const unzipped = join(tmp, 'unzipped');
      mkdirSync(unzipped);
      run('unzip', ['-q', zip, '-d', unzipped]);
      const reference = sha256sums(unzipped);
      const files = inventory.entries.filter((e: ArtifactEntry) => e.kind === 'file');
      expect(Object.fromEntries(files.map((e) => [e.path, e.sha256]))).toEqual(reference);
      expect(files.every((e) => e.integrity === 'verified')).toBe(true);
      const link = inventory.entries.find((e) => e.path === 'link');
      expect(link).toMatchObject({ kind: 'symlink', symlink_target: 'src/random.bin' });
      expect((inventory.entries.find((e) => e.path === 'run.sh')!.mode! & 0o777).toString(8)).toBe('755');
      expect(inventory.entries.find((e) => e.path === 'src/deep')).toMatchObject({ kind: 'directory', sha256: null });
    });
  });

  it('should extract into a fresh 0700 directory the same bytes unzip extracts', async () => {
    await withTempDir(async (tmp) => {
      const zip = zippedTree(tmp, true);
      const unzipped = join(tmp, 'unzipped');
      mkdirSync(unzipped);
      run('unzip', ['-q', zip, '-d', unzipped]);
      const reference = sha256sums(unzipped);
      delete reference['link'];
      const { outputDirectory, result } = await extractArtifact(zip, { parentDirectory: tmp });
      try {
        expect(run('stat', ['-c', '%a', outputDirectory]).trim()).toBe('700');
        expect(sha256sums(outputDirectory)).toEqual(reference);
        expect(Object.fromEntries(result.files.map((f) => [f.path, f.sha256]))).toEqual(reference);
        expect(result.skipped).toEqual([{ path: 'link', reason: 'symlinks are not materialized' }]);
      } finally {
        run('rm', ['-rf', outputDirectory]);
      }
    });
  });

  it('should extract only the selected paths', async () => {
    await withTempDir(async (tmp) => {
      const zip = zippedTree(tmp, false);
      const { outputDirectory, result } = await extractArtifact(zip, { parentDirectory: tmp, select: ['src/deep'] });
      expect(result.files.map((f) => f.path)).toEqual(['src/deep/deeper/x.js']);
      expect(Object.keys(sha256sums(outputDirectory))).toEqual(['src/deep/deeper/x.js']);
      await expect(extractArtifact(zip, { parentDirectory: tmp, select: ['nope'] })).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });

  it('should refuse a missing or non-directory parent directory with a typed error and leave nothing behind', async () => {
    await withTempDir(async (tmp) => {
      const zip = zippedTree(tmp, false);
      const missing = join(tmp, 'absent', 'deeper');
      await expect(extractArtifact(zip, { parentDirectory: missing })).rejects.toMatchObject({
        code: 'not_found',
        details: { path: missing, reason: 'missing' },
      });
      // A regular file where the parent directory should be: ENOTDIR, reported as not found too.
      await expect(extractArtifact(zip, { parentDirectory: zip })).rejects.toMatchObject({ code: 'not_found' });
      expect(readdirSync(tmp).sort()).toEqual(['a.zip', 'tree']);
    });
  });
});

describe('inspectArtifact on ZIP variants written field by field', () => {
  it('should read stored, deflated, data-descriptor and zip64 entries and verify them', async () => {
    await withTempDir(async (tmp) => {
      const data = randomBytes(5000);
      const zip = join(tmp, 'v.zip');
      writeFileSync(
        zip,
        buildZip(
          [
            { name: 'stored', data, method: 0 },
            { name: 'deflated', data },
            { name: 'descriptor', data, dataDescriptor: true },
            { name: 'zip64', data, zip64: true },
          ],
          { zip64End: true },
        ),
      );
      const { inventory, coverage } = await inspectArtifact(zip);
      expect(coverage.status).toBe('complete');
      expect(inventory.entries.map((e) => [e.path, e.sha256, e.integrity])).toEqual(
        ['stored', 'deflated', 'descriptor', 'zip64'].map((n) => [n, sha(data), 'verified']),
      );
      expect(run('unzip', ['-Z1', zip]).trim().split('\n')).toEqual(['stored', 'deflated', 'descriptor', 'zip64']);
      run('unzip', ['-tq', zip]);
    });
  });

  it.each([
    ['apk', ['AndroidManifest.xml', 'classes.dex', 'resources.arsc']],
    ['aar', ['AndroidManifest.xml', 'classes.jar', 'R.txt']],
    ['ipa', ['Payload/Example.app/Info.plist', 'Payload/Example.app/Example']],
    ['jar', ['META-INF/MANIFEST.MF', 'com/example/Main.class']],
    ['msix', ['AppxManifest.xml', 'AppxBlockMap.xml', 'AppxMetadata/CodeIntegrity.cat']],
    ['nuget', ['[Content_Types].xml', 'Example.nuspec', 'lib/net8.0/Example.dll']],
    ['vsix', ['extension.vsixmanifest', '[Content_Types].xml', 'extension/package.json']],
    ['wheel', ['example/__init__.py', 'example-1.0.dist-info/WHEEL', 'example-1.0.dist-info/METADATA']],
  ])('should identify a %s by its content, whatever the file is called', async (type, names) => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'package.bin');
      writeFileSync(file, buildZip(names.map((name) => ({ name, data: Buffer.from(name) }))));
      const { inventory } = await inspectArtifact(file);
      expect(inventory.format).toBe('zip');
      expect(inventory.package_type).toBe(type);
    });
  });

  it('should call a plain archive a zip with no package type', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'x.apk');
      writeFileSync(file, buildZip([{ name: 'a.txt', data: Buffer.from('a') }]));
      expect((await inspectArtifact(file)).inventory.package_type).toBeNull();
    });
  });
});
