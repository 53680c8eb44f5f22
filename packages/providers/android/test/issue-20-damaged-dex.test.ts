// A damaged DEX file is said to be damaged, never listed as a complete answer. dexdump refuses a DEX
// whose header gives more bytes than the file holds, or whose Adler-32 checksum does not match; REA
// leaves such a file unread (a `dex-unreadable` limitation, partial coverage), states a DEX entry of an
// APK that contradicts its CRC-32 in every class tool, says so when a class it cannot find may be in a
// DEX file it could not read, and states references that resolve to nothing. Built from the okhttp DEX
// of Debian's androguard samples; dexdump and unzip judge the same damaged files.
import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withTempDir } from '@rea/test-helpers';
import { inspectAndroidClassTool, inspectAndroidPackageTool, searchAndroidClassesTool } from '../src/index.js';
import { SAMPLES, resealDex, runTool } from './support.js';

const DEX = `${SAMPLES}/tests/okhttp.d8.038.dex`;
const APK = `${SAMPLES}/tests/a2dp.Vol_137.apk`;

/** dexdump's verdict on `file`: null when it reads it, else its complaint. */
function dexdumpRefusal(file: string): string | null {
  const run = spawnSync('dexdump', [file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return run.status === 0 ? null : `${run.stderr}${run.stdout}`.trim();
}

type Search = { total: number; classes: { descriptor: string; superclass: string | null }[] };

describe('damaged DEX files', () => {
  it('should leave a truncated DEX unread and say why, as dexdump refuses it', async () => {
    await withTempDir(async (tmp) => {
      const cut = join(tmp, 'cut.dex');
      writeFileSync(cut, readFileSync(DEX).subarray(0, 100_000));
      expect(dexdumpRefusal(cut)).toMatch(/Bad file size/);
      const found = await runTool<Search>(searchAndroidClassesTool, { path: cut });
      expect(found.normalized_result.total).toBe(0);
      expect(found.coverage.status).toBe('partial');
      expect(found.limitations).toEqual([
        expect.objectContaining({ kind: 'dex-unreadable', message: expect.stringMatching(/truncated/) }),
      ]);
      const inspected = await runTool(inspectAndroidPackageTool, { path: cut });
      expect(inspected.coverage.status).toBe('partial');
      // Stated once, not once per way it was found.
      expect(inspected.limitations.filter((l) => l.kind === 'dex-unreadable')).toHaveLength(1);
    });
  });

  it('should leave a DEX whose checksum does not match unread, as dexdump refuses it, and read the intact one', async () => {
    await withTempDir(async (tmp) => {
      const intact = join(tmp, 'intact.dex');
      copyFileSync(DEX, intact);
      expect(dexdumpRefusal(intact)).toBeNull();
      const whole = await runTool<Search>(searchAndroidClassesTool, { path: intact, limit: 2000 });
      expect(whole.coverage.status).toBe('complete');
      expect(whole.normalized_result.total).toBeGreaterThan(200);
      const flipped = readFileSync(DEX);
      // One byte of string data, far past the header and the id tables.
      const at = flipped.length - 5000;
      flipped[at] = flipped[at]! ^ 0xff;
      const damaged = join(tmp, 'flipped.dex');
      writeFileSync(damaged, flipped);
      expect(dexdumpRefusal(damaged)).toMatch(/Bad checksum/);
      const found = await runTool<Search>(searchAndroidClassesTool, { path: damaged });
      expect(found.normalized_result.total).toBe(0);
      expect(found.limitations).toEqual([
        expect.objectContaining({ kind: 'dex-unreadable', message: expect.stringMatching(/checksum/) }),
      ]);
    });
  });

  it("should state an APK's DEX entry that contradicts its CRC in the class tools, and name it when a class is not found", async () => {
    await withTempDir(async (tmp) => {
      const apk = join(tmp, 'damaged.apk');
      copyFileSync(APK, apk);
      // classes.dex's data, located through unzip's own listing of its local header offset.
      const listing = execFileSync('zipinfo', ['-v', apk, 'classes.dex'], { encoding: 'utf8' });
      const offset = Number(/offset of local header from start of archive:\s+(\d+)/.exec(listing)![1]);
      const bytes = readFileSync(apk);
      const data = offset + 30 + bytes.readUInt16LE(offset + 26) + bytes.readUInt16LE(offset + 28);
      for (let i = data + 200; i < data + 264; i += 1) bytes[i] = bytes[i]! ^ 0xff;
      writeFileSync(apk, bytes);
      expect(spawnSync('unzip', ['-tqq', apk]).status).not.toBe(0);
      const found = await runTool<Search>(searchAndroidClassesTool, { path: apk });
      expect(found.normalized_result.total).toBe(0);
      expect(found.coverage.status).toBe('partial');
      expect(found.limitations).toEqual([
        expect.objectContaining({ kind: 'integrity-contradicted', scope: 'classes.dex' }),
      ]);
      await expect(runTool(inspectAndroidClassTool, { path: apk, class: 'a2dp.Vol.main' })).rejects.toMatchObject({
        code: 'not_found',
        message: expect.stringMatching(/1 DEX file\(s\) could not be read: classes\.dex/),
        details: { unread_dex: 1 },
      });
    });
  });

  it('should state references that resolve to nothing in a DEX whose checksum was made to match', async () => {
    await withTempDir(async (tmp) => {
      const bytes = readFileSync(DEX);
      // The first class definition's superclass index, pointed past the type table; checksum redone.
      const classDefs = bytes.readUInt32LE(100);
      bytes.writeUInt32LE(0x7ffffff0, classDefs + 8);
      const odd = join(tmp, 'odd.dex');
      writeFileSync(odd, resealDex(bytes));
      const found = await runTool<Search>(searchAndroidClassesTool, { path: odd, limit: 2000 });
      expect(found.normalized_result.classes.some((c) => c.superclass === '<bad type 0x7ffffff0>')).toBe(true);
      expect(found.coverage.status).toBe('partial');
      expect(found.limitations).toEqual([expect.objectContaining({ kind: 'dex-references-unresolved' })]);
    });
  });
});
