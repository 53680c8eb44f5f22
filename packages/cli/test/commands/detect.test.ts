import { describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withTempDir } from '@rea/test-helpers';
import { detectTarget } from '../../src/commands/detect.js';

/** The bytes of an empty ZIP: its end-of-central-directory record alone. */
const EMPTY_ZIP = Buffer.concat([Buffer.from('PK\x05\x06', 'latin1'), Buffer.alloc(18)]);

/** A DEX header's first bytes: magic, version 035, NUL, then zeros. */
const DEX = Buffer.concat([Buffer.from('dex\n035\0', 'latin1'), Buffer.alloc(104)]);

describe('detectTarget', () => {
  it('should tell Android packages from other ZIP archives by their name', async () => {
    await withTempDir(async (dir) => {
      const kinds: Record<string, string> = {};
      for (const name of ['app.apk', 'APP.APK', 'app.aab', 'app.apks', 'app.xapk', 'app.zip', 'app.jar']) {
        writeFileSync(join(dir, name), EMPTY_ZIP);
        const target = await detectTarget(join(dir, name));
        expect(target.format).toBe('zip');
        kinds[name] = target.kind;
      }
      expect(kinds).toEqual({
        'app.apk': 'apk',
        'APP.APK': 'apk',
        'app.aab': 'aab',
        'app.apks': 'apk-set',
        'app.xapk': 'apk-set',
        'app.zip': 'archive',
        'app.jar': 'archive',
      });
    });
  });

  it('should tell a DEX file by its magic, whatever its name', async () => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, 'classes'), DEX);
      expect(await detectTarget(join(dir, 'classes'))).toMatchObject({ kind: 'dex', format: 'dex' });
      // "dex\n" without a three-digit version and NUL is no DEX header.
      writeFileSync(join(dir, 'notes.dex'), 'dex\nnotes about a DEX file\n');
      expect(await detectTarget(join(dir, 'notes.dex'))).toMatchObject({ kind: 'file', format: 'unknown' });
    });
  });

  it('should call a folder of APKs a split-APK set, and any other folder a directory', async () => {
    await withTempDir(async (dir) => {
      const split = join(dir, 'split');
      // As `adb pull` of an installed app gives it: the APKs, and lib/ and oat/ folders beside them.
      mkdirSync(join(split, 'lib', 'arm64'), { recursive: true });
      mkdirSync(join(split, 'oat'));
      for (const name of ['base.apk', 'split_config.arm64_v8a.apk', '.DS_Store']) writeFileSync(join(split, name), '');
      expect(await detectTarget(split)).toMatchObject({ kind: 'apk-set', format: 'directory' });

      writeFileSync(join(split, 'package.json'), '{}');
      expect(await detectTarget(split)).toMatchObject({ kind: 'directory', format: 'directory' });
      const folders = join(dir, 'folders-only');
      mkdirSync(join(folders, 'app.apk'), { recursive: true });
      expect(await detectTarget(folders)).toMatchObject({ kind: 'directory' });
      const empty = join(dir, 'empty');
      mkdirSync(empty);
      expect(await detectTarget(empty)).toMatchObject({ kind: 'directory' });
    });
  });
});
