import { describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as asar from '@electron/asar';
import { extractArtifact, inspectArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { run } from './helpers/exec.js';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/** A small Electron-like app: JavaScript, a binary blob larger than one 4 MiB block, and a native addon. */
async function makeApp(tmp: string): Promise<{ archive: string; files: Record<string, Buffer> }> {
  const src = join(tmp, 'app');
  mkdirSync(join(src, 'lib'), { recursive: true });
  mkdirSync(join(src, 'native'), { recursive: true });
  const files: Record<string, Buffer> = {
    'package.json': Buffer.from('{"name":"demo","main":"lib/main.js"}'),
    'lib/main.js': Buffer.from('console.log("main");\n'),
    'lib/big.bin': randomBytes(5 * 1024 * 1024 + 17),
    'native/addon.node': randomBytes(20_000),
  };
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(src, name), bytes);
  const archive = join(tmp, 'app.asar');
  await asar.createPackageWithOptions(src, archive, { unpack: '*.node' });
  return { archive, files };
}

/** Hashes every regular file below `dir` with sha256sum: { relative path → hash }. */
function sha256sums(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const text = run('sh', ['-c', 'find . -type f -print0 | xargs -0 -r sha256sum'], dir);
  for (const line of text.trim().split('\n').filter(Boolean))
    out[line.slice(66).replace(/^\.\//, '')] = line.slice(0, 64);
  return out;
}

describe('ASAR archives written by @electron/asar', () => {
  it('should list what @electron/asar lists and verify every entry against the header integrity', async () => {
    await withTempDir(async (tmp) => {
      const { archive, files } = await makeApp(tmp);
      const { inventory, coverage, subject } = await inspectArtifact(archive);
      expect(coverage).toEqual({ status: 'complete', reasons: [] });
      expect(subject.format).toBe('asar');
      const reference = asar
        .listPackage(archive, { isPack: false })
        .map((p) => p.replace(/^\//, ''))
        .sort();
      expect(inventory.entries.map((e) => e.path).sort()).toEqual(reference);
      for (const [name, bytes] of Object.entries(files)) {
        expect(inventory.entries.find((e) => e.path === name)).toMatchObject({
          sha256: sha(bytes),
          size: bytes.length,
          integrity: 'verified',
          unpacked: name.endsWith('.node'),
        });
      }
    });
  });

  it('should extract the same bytes as @electron/asar extractAll, unpacked companions included', async () => {
    await withTempDir(async (tmp) => {
      const { archive } = await makeApp(tmp);
      const reference = join(tmp, 'reference');
      asar.extractAll(archive, reference);
      const { outputDirectory, result } = await extractArtifact(archive, { parentDirectory: tmp });
      expect(sha256sums(outputDirectory)).toEqual(sha256sums(reference));
      expect(result.files.find((f) => f.path === 'native/addon.node')).toMatchObject({
        unpacked: true,
        integrity: 'verified',
      });
    });
  });

  it('should name the signing cause and the rerun option when an unpacked file was changed after packing', async () => {
    await withTempDir(async (tmp) => {
      const { archive } = await makeApp(tmp);
      appendFileSync(join(`${archive}.unpacked`, 'native', 'addon.node'), 'signature');
      const error = await inspectArtifact(archive).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'artifact_integrity_mismatch',
        details: { path: 'native/addon.node', unpacked: true, algorithm: 'size' },
      });
      expect((error as Error).message).toMatch(/sign or strip/);
      expect((error as Error).message).toMatch(/record-and-continue/);
      const { inventory, coverage } = await inspectArtifact(archive, { integrityPolicy: 'record-and-continue' });
      expect(coverage.status).toBe('partial');
      expect(inventory.integrity_contradictions).toEqual([
        expect.objectContaining({
          path: 'native/addon.node',
          unpacked: true,
          provenance: 'asar-header',
          trust: 'contradicted',
        }),
      ]);
      expect(inventory.entries.find((e) => e.path === 'lib/big.bin')!.integrity).toBe('verified');
      await expect(extractArtifact(archive, { parentDirectory: tmp })).rejects.toMatchObject({
        code: 'artifact_integrity_mismatch',
      });
      const { result } = await extractArtifact(archive, {
        parentDirectory: tmp,
        integrityPolicy: 'record-and-continue',
      });
      expect(result.integrity_contradictions.map((c) => c.path)).toEqual(['native/addon.node']);
    });
  });

  it('should report a missing unpacked companion: partial inventory, unavailable extraction naming the path', async () => {
    await withTempDir(async (tmp) => {
      const { archive } = await makeApp(tmp);
      rmSync(`${archive}.unpacked`, { recursive: true });
      const { coverage, inventory } = await inspectArtifact(archive);
      expect(coverage.status).toBe('partial');
      expect(inventory.entries.find((e) => e.path === 'native/addon.node')).toMatchObject({
        sha256: null,
        unpacked: true,
      });
      const before = readdirSync(tmp).sort();
      await expect(extractArtifact(archive, { parentDirectory: tmp })).rejects.toMatchObject({
        code: 'target_unavailable',
        details: { path: 'native/addon.node', unpacked: true },
      });
      expect(readdirSync(tmp).sort()).toEqual(before);
    });
  });

  it('should expand app.asar inside an application directory, with its companion', async () => {
    await withTempDir(async (tmp) => {
      const { archive } = await makeApp(tmp);
      const appDir = join(tmp, 'Demo.app');
      const resources = join(appDir, 'Contents', 'Resources');
      mkdirSync(resources, { recursive: true });
      writeFileSync(join(appDir, 'Contents', 'Info.plist'), '<plist/>');
      run('cp', ['-r', archive, `${archive}.unpacked`, resources]);
      const { inventory, coverage } = await inspectArtifact(appDir);
      expect(coverage.status).toBe('complete');
      expect(inventory).toMatchObject({ format: 'directory', package_type: 'app-bundle' });
      expect(inventory.nested_containers).toEqual([
        { path: 'Contents/Resources/app.asar', format: 'asar', expanded: true, reason: null },
      ]);
      expect(inventory.entries.find((e) => e.path === 'Contents/Resources/app.asar!/native/addon.node')).toMatchObject({
        integrity: 'verified',
        unpacked: true,
      });
    });
  });

  it('should verify the unpacked companions of an ASAR shipped inside a ZIP, and name a re-signed one', async () => {
    await withTempDir(async (tmp) => {
      const { archive } = await makeApp(tmp);
      const zip = join(tmp, 'app.zip');
      run('zip', ['-q', '-r', zip, 'app.asar', 'app.asar.unpacked'], tmp);
      const { inventory, coverage } = await inspectArtifact(zip);
      expect(coverage).toEqual({ status: 'complete', reasons: [] });
      expect(inventory.entries.find((e) => e.path === 'app.asar!/native/addon.node')).toMatchObject({
        unpacked: true,
        integrity: 'verified',
      });
      appendFileSync(join(`${archive}.unpacked`, 'native', 'addon.node'), 'signature');
      const signed = join(tmp, 'signed.zip');
      run('zip', ['-q', '-r', signed, 'app.asar', 'app.asar.unpacked'], tmp);
      const error = await inspectArtifact(signed).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'artifact_integrity_mismatch',
        details: { path: 'app.asar!/native/addon.node', unpacked: true },
      });
      expect((error as Error).message).toMatch(/sign or strip/);
      const continued = await inspectArtifact(signed, { integrityPolicy: 'record-and-continue' });
      expect(continued.inventory.integrity_contradictions.map((c) => [c.path, c.unpacked])).toEqual([
        ['app.asar!/native/addon.node', true],
      ]);
    });
  });
});
