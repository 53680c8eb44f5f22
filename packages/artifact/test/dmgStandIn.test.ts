// DMG inventory through the real attach → walk → detach code, against a SCRIPTED STAND-IN for hdiutil
// (test/fixtures/hdiutil-stand-in.mjs), because hdiutil exists only on macOS. The real hdiutil runs in
// dmg.engine.test.ts on macOS hosts.
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, lstatSync, readlinkSync } from 'node:fs';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspectArtifact } from '@rea/artifact';
import type { InspectOptions } from '@rea/artifact';
import { processAlive, skipUnless, withTempDir } from '@rea/test-helpers';
import { buildZip } from './helpers/zipWriter.js';

const STAND_IN = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'hdiutil-stand-in.mjs');
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

interface Scenario {
  tmp: string;
  image: string;
  hdiutil: string;
  log: string;
  tree: string;
}

/** A fake UDIF image (ends in a "koly" trailer), a fixture tree, and a wrapper that runs the stand-in. */
function scenario(tmp: string, env: Record<string, string> = {}): Scenario {
  const tree = join(tmp, 'tree');
  mkdirSync(tree, { recursive: true });
  const trailer = Buffer.alloc(512);
  trailer.write('koly', 0, 'latin1');
  // Its version (4) and its own length (512), big-endian, as UDIF writes them.
  trailer.writeUInt32BE(4, 4);
  trailer.writeUInt32BE(512, 8);
  const image = join(tmp, 'disk.dmg');
  writeFileSync(image, Buffer.concat([Buffer.alloc(4096, 1), trailer]));
  const log = join(tmp, 'hdiutil.log');
  const hdiutil = join(tmp, 'hdiutil');
  const exports = Object.entries({ ...env, HDIUTIL_STAND_IN_TREE: tree, HDIUTIL_STAND_IN_LOG: log })
    .map(([key, value]) => `export ${key}='${value}'`)
    .join('\n');
  writeFileSync(hdiutil, `#!/bin/sh\n${exports}\nexec '${process.execPath}' '${STAND_IN}' "$@"\n`);
  chmodSync(hdiutil, 0o755);
  return { tmp, image, hdiutil, log, tree };
}

/** The stand-in's calls logged so far: complete lines only (a poll may read while one is being written). */
function calls(s: Scenario): Array<{ pid: number; args: string[] }> {
  if (!existsSync(s.log)) return [];
  const lines = readFileSync(s.log, 'utf8').split('\n');
  return lines.slice(0, -1).map((line) => JSON.parse(line) as { pid: number; args: string[] });
}

/** The mount point REA passed to attach. */
function mountOf(s: Scenario): string {
  const attach = calls(s).find((c) => c.args[0] === 'attach')!;
  return attach.args[attach.args.indexOf('-mountpoint') + 1]!;
}

/** Walks `root` with node:fs alone: path → [kind, sha256 or link target]. */
function reference(root: string, rel = ''): Map<string, [string, string | null]> {
  const out = new Map<string, [string, string | null]>();
  for (const name of readdirSync(join(root, rel))) {
    const path = rel === '' ? name : `${rel}/${name}`;
    const info = lstatSync(join(root, path));
    if (info.isSymbolicLink()) out.set(path, ['symlink', readlinkSync(join(root, path))]);
    else if (info.isDirectory()) {
      out.set(path, ['directory', null]);
      for (const [k, v] of reference(root, path)) out.set(k, v);
    } else out.set(path, ['file', sha(readFileSync(join(root, path)))]);
  }
  return out;
}

const options = (s: Scenario, more: InspectOptions = {}): InspectOptions => ({
  platform: 'linux',
  ...more,
  dmg: { hdiutil: s.hdiutil, timeoutMs: 20_000, ...more.dmg },
});

describe('DMG inventory through a scripted stand-in hdiutil', () => {
  it('should list exactly the fixture tree, attach read-only to an owned mount point, and detach it', async () => {
    await withTempDir(async (tmp) => {
      const s = scenario(tmp);
      mkdirSync(join(s.tree, 'App.app', 'Contents', 'MacOS'), { recursive: true });
      writeFileSync(join(s.tree, 'App.app', 'Contents', 'Info.plist'), '<plist/>');
      writeFileSync(join(s.tree, 'App.app', 'Contents', 'MacOS', 'App'), Buffer.alloc(200_000, 3));
      writeFileSync(join(s.tree, 'README.txt'), 'read me');
      symlinkSync('/Applications', join(s.tree, 'Applications'));
      const { subject, inventory, coverage } = await inspectArtifact(s.image, options(s));
      expect(subject).toMatchObject({ format: 'dmg', sha256: sha(readFileSync(s.image)) });
      const expected = reference(s.tree);
      const observed = new Map(
        inventory.entries.map((e) => [e.path, [e.kind, e.kind === 'symlink' ? e.symlink_target : e.sha256]]),
      );
      expect(observed).toEqual(expected);
      // The outward /Applications link is recorded, not followed.
      expect(coverage.status).toBe('partial');
      const [attach, detach, ...more] = calls(s);
      expect(attach!.args.slice(0, 3)).toEqual(['attach', '-readonly', '-nobrowse']);
      expect(attach!.args.at(-1)).toBe(s.image);
      const mount = mountOf(s);
      expect(detach!.args).toEqual(['detach', mount]);
      expect(more).toEqual([]);
      // The owned temporary directory holding the mount point is gone.
      expect(existsSync(dirname(mount))).toBe(false);
    });
  });

  it('should still detach after an abort in the middle of the walk', async () => {
    await withTempDir(async (tmp) => {
      const s = scenario(tmp);
      for (let i = 0; i < 1100; i += 1) writeFileSync(join(s.tree, `f${i}`), String(i));
      const controller = new AbortController();
      const error = await inspectArtifact(
        s.image,
        options(s, { signal: controller.signal, onProgress: () => controller.abort() }),
      ).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'cancelled' });
      const mount = mountOf(s);
      expect(calls(s).map((c) => c.args)).toContainEqual(['detach', mount]);
      expect(existsSync(dirname(mount))).toBe(false);
    });
  });

  it('should still detach after the walk fails (a nested archive with a bad CRC, fail-closed)', async () => {
    await withTempDir(async (tmp) => {
      const s = scenario(tmp);
      writeFileSync(join(s.tree, 'bad.zip'), buildZip([{ name: 'x.txt', data: Buffer.from('hello'), crc: 1 }]));
      const error = await inspectArtifact(s.image, options(s)).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'artifact_integrity_mismatch' });
      const mount = mountOf(s);
      expect(calls(s).map((c) => c.args)).toContainEqual(['detach', mount]);
      expect(existsSync(dirname(mount))).toBe(false);
    });
  });

  it('should fail attach with execution_failure carrying hdiutil’s message, and leave nothing behind', async () => {
    await withTempDir(async (tmp) => {
      const s = scenario(tmp, { HDIUTIL_STAND_IN_FAIL: 'attach' });
      const error = await inspectArtifact(s.image, options(s)).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'execution_failure',
        details: { phase: 'attach', command: 'hdiutil' },
      });
      expect((error as Error).message).toMatch(/no mountable file systems/);
      expect(calls(s).map((c) => c.args[0])).toEqual(['attach']);
      expect(existsSync(dirname(mountOf(s)))).toBe(false);
    });
  });

  it('should answer cleanup_incomplete naming the mount point when detach fails', async () => {
    await withTempDir(async (tmp) => {
      const s = scenario(tmp, { HDIUTIL_STAND_IN_FAIL: 'detach' });
      writeFileSync(join(s.tree, 'a.txt'), 'a');
      const error = await inspectArtifact(s.image, options(s)).catch((e: unknown) => e);
      const mount = mountOf(s);
      expect(error).toMatchObject({
        code: 'cleanup_incomplete',
        details: { remaining: [{ kind: 'mounts', identifiers: [mount] }] },
      });
      // Detach was tried, then forced; the "mounted" files were not deleted through the mount.
      expect(calls(s).map((c) => c.args)).toEqual([
        expect.arrayContaining(['attach']),
        ['detach', mount],
        ['detach', mount, '-force'],
      ]);
      expect(readFileSync(join(mount, 'a.txt'), 'utf8')).toBe('a');
      rmSync(dirname(mount), { recursive: true, force: true });
    });
  });

  it('should honour the deadline when attach hangs, end the attach process, and still detach', async () => {
    await withTempDir(async (tmp) => {
      const s = scenario(tmp, { HDIUTIL_STAND_IN_HANG: 'attach' });
      const error = await inspectArtifact(
        s.image,
        options(s, { dmg: { timeoutMs: 5000, detachTimeoutMs: 20_000 } }),
      ).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'provider_timeout', details: { phase: 'dmg attach', deadline_ms: 5000 } });
      const [attach, detach] = calls(s);
      expect(processAlive(attach!.pid)).toBe(false);
      expect(detach!.args).toEqual(['detach', mountOf(s)]);
      expect(existsSync(dirname(mountOf(s)))).toBe(false);
    });
  });

  it('should honour cancellation while attach hangs', async () => {
    await withTempDir(async (tmp) => {
      const s = scenario(tmp, { HDIUTIL_STAND_IN_HANG: 'attach' });
      const controller = new AbortController();
      // Abort once the stand-in is running (it logs on start), so the abort lands while attach hangs.
      const poll = setInterval(() => {
        if (calls(s).some((c) => c.args[0] === 'attach')) {
          clearInterval(poll);
          controller.abort();
        }
      }, 50);
      const error = await inspectArtifact(s.image, options(s, { signal: controller.signal })).catch((e: unknown) => e);
      // `cancelled`, not `provider_timeout`: the abort, not the 20 s deadline, ended it.
      expect(error).toMatchObject({ code: 'cancelled' });
      const [attach, detach] = calls(s);
      expect(processAlive(attach!.pid)).toBe(false);
      expect(detach!.args[0]).toBe('detach');
    });
  });

  it('should report cleanup_incomplete when detach hangs past its deadline, ending the detach processes', async () => {
    await withTempDir(async (tmp) => {
      const s = scenario(tmp, { HDIUTIL_STAND_IN_HANG: 'detach' });
      writeFileSync(join(s.tree, 'a.txt'), 'a');
      const error = await inspectArtifact(s.image, options(s, { dmg: { detachTimeoutMs: 5000 } })).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({
        code: 'cleanup_incomplete',
        details: { remaining: [{ kind: 'mounts', identifiers: [mountOf(s)] }] },
      });
      const detaches = calls(s).filter((c) => c.args[0] === 'detach');
      expect(detaches).toHaveLength(2);
      for (const d of detaches) expect(processAlive(d.pid)).toBe(false);
      rmSync(dirname(mountOf(s)), { recursive: true, force: true });
    });
  });

  it('should take an interrupted attach that mounted nothing as detached, even when detach fails', async () => {
    await withTempDir(async (tmp) => {
      // The copying stand-in never mounts, so the mount point stays on its parent's device.
      const s = scenario(tmp, { HDIUTIL_STAND_IN_HANG: 'attach', HDIUTIL_STAND_IN_FAIL: 'detach' });
      const error = await inspectArtifact(s.image, options(s, { dmg: { timeoutMs: 5000 } })).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'provider_timeout', details: { phase: 'dmg attach' } });
      expect(calls(s).map((c) => c.args.slice(0, 1).concat(c.args.slice(2)))).toEqual([
        expect.arrayContaining(['attach']),
        ['detach'],
        ['detach', '-force'],
      ]);
      expect(existsSync(dirname(mountOf(s)))).toBe(false);
    });
  });

  it('should still be capability_unavailable off macOS when no hdiutil is named', async () => {
    await withTempDir(async (tmp) => {
      const s = scenario(tmp);
      const error = await inspectArtifact(s.image, { platform: 'linux' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'capability_unavailable', details: { capability: 'dmg' } });
      expect((error as { remediation?: string }).remediation).toMatch(/macOS/);
      expect(calls(s)).toEqual([]);
    });
  });
});

/** Why a tmpfs cannot be mounted on this host, or null when it can (mounting one needs root). */
function tmpfsUnavailable(): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'rea-tmpfs-check-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'rea-check', dir], { stdio: 'pipe' });
    execFileSync('umount', [dir], { stdio: 'pipe' });
    return null;
  } catch (error) {
    return `a tmpfs cannot be mounted here (${String((error as { stderr?: unknown }).stderr ?? error).trim()}), so the device-id attachment check is not exercised against a real mount`;
  } finally {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Left mounted by a failed unmount: reported by the mount check of the tests below.
    }
  }
}

/** Mount points the kernel lists for this process (independent of REA's device-id check). */
function kernelMounts(): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.split(' ')[4]!.replace(/\\040/g, ' '));
}

skipUnless(process.platform === 'linux' ? tmpfsUnavailable() : 'tmpfs mounts are checked on Linux only')(
  'DMG attach through the stand-in hdiutil mounting a real tmpfs',
  () => {
    const tmpfs = { HDIUTIL_STAND_IN_MOUNT: 'tmpfs' };

    it('should inventory the mounted file system and unmount it', async () => {
      await withTempDir(async (tmp) => {
        const s = scenario(tmp, tmpfs);
        writeFileSync(join(s.tree, 'a.txt'), 'on tmpfs');
        const { inventory } = await inspectArtifact(s.image, options(s));
        expect(inventory.entries.map((e) => [e.path, e.sha256])).toEqual([['a.txt', sha(Buffer.from('on tmpfs'))]]);
        expect(kernelMounts()).not.toContain(mountOf(s));
        expect(existsSync(dirname(mountOf(s)))).toBe(false);
      });
    });

    it('should report an empty volume mounted by an interrupted attach as still attached when detach fails', async () => {
      await withTempDir(async (tmp) => {
        const s = scenario(tmp, { ...tmpfs, HDIUTIL_STAND_IN_HANG: 'attach', HDIUTIL_STAND_IN_FAIL: 'detach' });
        const error = await inspectArtifact(s.image, options(s, { dmg: { timeoutMs: 5000 } })).catch((e: unknown) => e);
        const mount = mountOf(s);
        try {
          expect(error).toMatchObject({
            code: 'cleanup_incomplete',
            details: { remaining: [{ kind: 'mounts', identifiers: [mount] }] },
          });
          // The kernel agrees: the empty tmpfs is still mounted there, and it was not deleted through.
          expect(kernelMounts()).toContain(mount);
          expect(readdirSync(mount)).toEqual([]);
        } finally {
          if (kernelMounts().includes(mount)) execFileSync('umount', [mount]);
          rmSync(dirname(mount), { recursive: true, force: true });
        }
      });
    });

    it('should take the empty volume as detached once detach has unmounted it', async () => {
      await withTempDir(async (tmp) => {
        const s = scenario(tmp, { ...tmpfs, HDIUTIL_STAND_IN_HANG: 'attach' });
        const error = await inspectArtifact(s.image, options(s, { dmg: { timeoutMs: 5000 } })).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: 'provider_timeout', details: { phase: 'dmg attach' } });
        expect(calls(s).filter((c) => c.args[0] === 'detach')).toHaveLength(1);
        expect(kernelMounts()).not.toContain(mountOf(s));
        expect(existsSync(dirname(mountOf(s)))).toBe(false);
      });
    });
  },
);
