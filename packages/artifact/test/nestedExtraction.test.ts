import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import * as asar from '@electron/asar';
import { extractArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { buildZip } from './helpers/zipWriter.js';
import { run } from './helpers/exec.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const text = (s: string): Buffer => Buffer.from(s, 'utf8');

const inner = buildZip([
  { name: 'a/b.txt', data: text('inner b') },
  { name: 'c.txt', data: text('inner c') },
]);

/** Extracts into a fresh parent; returns the error or the outcome, and what the parent holds. */
async function attempt(archive: string, parent: string, select: string[], policy?: 'record-and-continue') {
  mkdirSync(parent, { recursive: true });
  const outcome = await extractArtifact(archive, {
    parentDirectory: parent,
    select,
    ...(policy ? { integrityPolicy: policy } : {}),
  }).catch((e: unknown) => e);
  return { outcome, left: readdirSync(parent) };
}

describe('extractArtifact into nested containers', () => {
  it('should extract an entry of a ZIP inside a ZIP by its logical path, beside a top-level entry', async () => {
    await withTempDir(async (tmp) => {
      const archive = join(tmp, 'outer.zip');
      writeFileSync(
        archive,
        buildZip([
          { name: 'top.txt', data: text('top') },
          { name: 'lib/inner.zip', data: inner },
        ]),
      );
      // Independent check that the archive holds what the test claims.
      expect(run('unzip', ['-Z1', archive]).trim().split('\n')).toEqual(['top.txt', 'lib/inner.zip']);
      const { outputDirectory, result } = await extractArtifact(archive, {
        parentDirectory: tmp,
        select: ['lib/inner.zip!/a/b.txt', 'top.txt'],
      });
      expect(result.files.map((f) => [f.path, f.sha256])).toEqual([
        ['lib/inner.zip!/a/b.txt', sha(text('inner b'))],
        ['top.txt', sha(text('top'))],
      ]);
      expect(readFileSync(join(outputDirectory, 'lib', 'inner.zip!', 'a', 'b.txt'), 'utf8')).toBe('inner b');
      expect(existsSync(join(outputDirectory, 'lib', 'inner.zip!', 'c.txt'))).toBe(false);
      expect(existsSync(join(outputDirectory, 'lib', 'inner.zip'))).toBe(false);
    });
  });

  it('should extract from an ASAR inside a ZIP (a file, and a directory selecting everything below)', async () => {
    await withTempDir(async (tmp) => {
      const src = join(tmp, 'app');
      mkdirSync(join(src, 'lib'), { recursive: true });
      writeFileSync(join(src, 'main.js'), 'console.log("main");');
      writeFileSync(join(src, 'lib', 'one.js'), 'one');
      writeFileSync(join(src, 'lib', 'two.js'), 'two');
      await asar.createPackageWithOptions(src, join(tmp, 'app.asar'), {});
      const archive = join(tmp, 'bundle.zip');
      writeFileSync(archive, buildZip([{ name: 'resources/app.asar', data: readFileSync(join(tmp, 'app.asar')) }]));
      const { outputDirectory, result } = await extractArtifact(archive, {
        parentDirectory: tmp,
        select: ['resources/app.asar!/main.js', 'resources/app.asar!/lib'],
      });
      expect(result.files.map((f) => f.path)).toEqual([
        'resources/app.asar!/lib/one.js',
        'resources/app.asar!/lib/two.js',
        'resources/app.asar!/main.js',
      ]);
      expect(result.files.every((f) => f.integrity === 'verified')).toBe(true);
      // The same bytes @electron/asar's own reader returns.
      const base = join(outputDirectory, 'resources', 'app.asar!');
      expect(readFileSync(join(base, 'main.js'))).toEqual(asar.extractFile(join(tmp, 'app.asar'), 'main.js'));
      expect(readFileSync(join(base, 'lib', 'two.js'))).toEqual(asar.extractFile(join(tmp, 'app.asar'), 'lib/two.js'));
    });
  });

  it('should follow two levels of nesting', async () => {
    await withTempDir(async (tmp) => {
      const middle = buildZip([{ name: 'inner.zip', data: inner }]);
      const archive = join(tmp, 'outer.zip');
      writeFileSync(archive, buildZip([{ name: 'middle.zip', data: middle }]));
      const { outputDirectory, result } = await extractArtifact(archive, {
        parentDirectory: tmp,
        select: ['middle.zip!/inner.zip!/c.txt'],
      });
      expect(result.files.map((f) => f.path)).toEqual(['middle.zip!/inner.zip!/c.txt']);
      expect(readFileSync(join(outputDirectory, 'middle.zip!', 'inner.zip!', 'c.txt'), 'utf8')).toBe('inner c');
    });
  });

  it('should refuse unsafe nested entries and write nothing', async () => {
    await withTempDir(async (tmp) => {
      const slip = buildZip([
        { name: 'ok.txt', data: text('ok') },
        { name: 'dir/../../evil.txt', data: text('evil') },
      ]);
      const archive = join(tmp, 'outer.zip');
      writeFileSync(
        archive,
        buildZip([
          { name: 'slip.zip', data: slip },
          { name: '../up.zip', data: inner },
        ]),
      );
      for (const select of [
        ['slip.zip!/dir'],
        ['slip.zip!/ok.txt', 'slip.zip!/dir/../../evil.txt'],
        ['../up.zip!/c.txt'],
      ]) {
        const parent = join(tmp, `out-${select.length}-${select[0]!.length}`);
        const { outcome, left } = await attempt(archive, parent, select);
        expect(outcome).toMatchObject({ code: 'unsupported_target', details: { reason: 'unsafe-path' } });
        expect(left).toEqual([]);
      }
      expect(existsSync(join(tmp, 'evil.txt'))).toBe(false);
    });
  });

  it('should refuse a nested container whose bytes contradict their CRC, under either policy', async () => {
    await withTempDir(async (tmp) => {
      const archive = join(tmp, 'outer.zip');
      writeFileSync(archive, buildZip([{ name: 'inner.zip', data: inner, crc: 0x1234 }]));
      const failed = await attempt(archive, join(tmp, 'a'), ['inner.zip!/c.txt']);
      expect(failed.outcome).toMatchObject({
        code: 'artifact_integrity_mismatch',
        details: { path: 'inner.zip', algorithm: 'crc32' },
      });
      expect(failed.left).toEqual([]);
      const recorded = await attempt(archive, join(tmp, 'b'), ['inner.zip!/c.txt'], 'record-and-continue');
      expect(recorded.outcome).toMatchObject({
        code: 'artifact_integrity_mismatch',
        details: { path: 'inner.zip', quarantined: true },
      });
      expect(recorded.left).toEqual([]);
    });
  });

  it('should check the integrity of entries inside the nested container too', async () => {
    await withTempDir(async (tmp) => {
      const lying = buildZip([{ name: 'x.txt', data: text('x'), crc: 7 }]);
      const archive = join(tmp, 'outer.zip');
      writeFileSync(archive, buildZip([{ name: 'lying.zip', data: lying }]));
      const failed = await attempt(archive, join(tmp, 'a'), ['lying.zip!/x.txt']);
      expect(failed.outcome).toMatchObject({
        code: 'artifact_integrity_mismatch',
        details: { path: 'lying.zip!/x.txt' },
      });
      expect(failed.left).toEqual([]);
      const { outputDirectory, result } = await extractArtifact(archive, {
        parentDirectory: tmp,
        select: ['lying.zip!/x.txt'],
        integrityPolicy: 'record-and-continue',
      });
      expect(result.integrity_contradictions.map((c) => c.path)).toEqual(['lying.zip!/x.txt']);
      expect(result.files).toMatchObject([{ path: 'lying.zip!/x.txt', integrity: 'contradicted' }]);
      expect(readFileSync(join(outputDirectory, 'lying.zip!', 'x.txt'), 'utf8')).toBe('x');
    });
  });

  it('should answer not_found and unsupported_target for selections that name nothing extractable', async () => {
    await withTempDir(async (tmp) => {
      const archive = join(tmp, 'outer.zip');
      writeFileSync(
        archive,
        buildZip([
          { name: 'inner.zip', data: inner },
          { name: 'plain.txt', data: text('plain') },
        ]),
      );
      const cases: Array<[string, object]> = [
        ['inner.zip!/missing.txt', { code: 'not_found', details: { path: 'inner.zip!/missing.txt' } }],
        ['absent.zip!/c.txt', { code: 'not_found', details: { path: 'absent.zip' } }],
        ['plain.txt!/x', { code: 'unsupported_target', details: { path: 'plain.txt', reason: 'not-an-archive' } }],
      ];
      for (const [index, [select, expected]] of cases.entries()) {
        const { outcome, left } = await attempt(archive, join(tmp, `o${index}`), [select]);
        expect(outcome).toMatchObject(expected);
        expect(left).toEqual([]);
        // A selection that names nothing says how paths are named, not how to find retained Evidence.
        const { remediation } = outcome as { remediation: string };
        if ((expected as { code: string }).code === 'not_found')
          expect(remediation).toContain('as inspect_artifact lists them');
        else expect(remediation).toContain('Select the entry itself, without "!/"');
      }
    });
  });
});
