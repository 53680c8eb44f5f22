// With a tool call's supervisor, DMG inventory runs hdiutil, owns the mount and its directory on that
// supervisor: the host sees the runs in the call's lineage, and the call's close removes the directory.
// Driven through the real attach → walk → detach code against the SCRIPTED STAND-IN for hdiutil
// (test/fixtures/hdiutil-stand-in.mjs), because hdiutil exists only on macOS.
import { describe, expect, it } from '@jest/globals';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspectArtifact } from '@rea/artifact';
import { createCallSupervisor } from '@rea/provider-kit';
import { withTempDir } from '@rea/test-helpers';

const STAND_IN = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'hdiutil-stand-in.mjs');

/** A fake UDIF image with one file, and a wrapper that runs the stand-in with a call log. */
function scenario(tmp: string): { image: string; hdiutil: string; log: string } {
  const tree = join(tmp, 'tree');
  mkdirSync(tree, { recursive: true });
  for (let i = 0; i < 1100; i += 1) writeFileSync(join(tree, `f${i}`), String(i));
  const trailer = Buffer.alloc(512);
  trailer.write('koly', 0, 'latin1');
  // Its version (4) and its own length (512), big-endian, as UDIF writes them.
  trailer.writeUInt32BE(4, 4);
  trailer.writeUInt32BE(512, 8);
  const image = join(tmp, 'disk.dmg');
  writeFileSync(image, Buffer.concat([Buffer.alloc(4096, 1), trailer]));
  const log = join(tmp, 'hdiutil.log');
  const hdiutil = join(tmp, 'hdiutil');
  writeFileSync(
    hdiutil,
    `#!/bin/sh\nexport HDIUTIL_STAND_IN_TREE='${tree}'\nexport HDIUTIL_STAND_IN_LOG='${log}'\nexec '${process.execPath}' '${STAND_IN}' "$@"\n`,
  );
  chmodSync(hdiutil, 0o755);
  return { image, hdiutil, log };
}

function calls(log: string): Array<{ pid: number; args: string[] }> {
  return readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { pid: number; args: string[] });
}

describe('issue 16: DMG inventory on the call supervisor', () => {
  it('should run hdiutil on the call supervisor and leave the directory to the call close', async () => {
    await withTempDir(async (tmp) => {
      const s = scenario(tmp);
      const supervisor = createCallSupervisor();
      const { inventory } = await inspectArtifact(s.image, {
        platform: 'linux',
        dmg: { hdiutil: s.hdiutil, timeoutMs: 20_000 },
        supervisor,
      });
      expect(inventory.file_count).toBe(1100);
      const [attach, detach] = calls(s.log);
      const mount = attach!.args[attach!.args.indexOf('-mountpoint') + 1]!;
      expect(detach!.args).toEqual(['detach', mount]);
      // Both runs are the call's: the host reports them as its lineage.
      expect(supervisor.lineage().map((observation) => observation.launcher.command)).toEqual([s.hdiutil, s.hdiutil]);
      expect(supervisor.owned()).toEqual([{ kind: 'temp-directories', id: dirname(mount) }]);
      await supervisor.closeAll();
      expect(existsSync(dirname(mount))).toBe(false);
      expect(supervisor.owned()).toEqual([]);
    });
  });

  it('should still detach on the call supervisor after an abort in the middle of the walk', async () => {
    await withTempDir(async (tmp) => {
      const s = scenario(tmp);
      const supervisor = createCallSupervisor();
      const controller = new AbortController();
      const error = await inspectArtifact(s.image, {
        platform: 'linux',
        dmg: { hdiutil: s.hdiutil, timeoutMs: 20_000 },
        supervisor,
        signal: controller.signal,
        onProgress: () => controller.abort(),
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'cancelled' });
      const [attach, detach] = calls(s.log);
      const mount = attach!.args[attach!.args.indexOf('-mountpoint') + 1]!;
      expect(detach!.args).toEqual(['detach', mount]);
      await supervisor.closeAll();
      expect(existsSync(dirname(mount))).toBe(false);
    });
  });
});
