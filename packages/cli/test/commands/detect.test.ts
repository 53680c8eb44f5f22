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

  it('should call a JSON file an Evidence bundle only when its format says so', async () => {
    await withTempDir(async (dir) => {
      // Any JSON with "records" and "version" keys is a file to inspect, not a bundle.
      writeFileSync(join(dir, 'data.json'), '{"version": 3, "records": [{"name": "alice"}]}\n');
      expect(await detectTarget(join(dir, 'data.json'))).toMatchObject({ kind: 'file', format: 'unknown' });
      writeFileSync(join(dir, 'bundle.json'), '{"format":"rea-evidence-bundle","records":[],"version":1}');
      expect(await detectTarget(join(dir, 'bundle.json'))).toMatchObject({ kind: 'evidence-bundle', format: 'json' });
      // Keys in another order, and spaces, as a bundle written by hand may have them.
      writeFileSync(join(dir, 'hand.json'), '{ "version": 1, "records": [], "format" : "rea-evidence-bundle" }');
      expect(await detectTarget(join(dir, 'hand.json'))).toMatchObject({ kind: 'evidence-bundle' });
    });
  });

  it('should tell an ASAR by its pickle header, whatever the order of its header keys', async () => {
    await withTempDir(async (dir) => {
      const asar = (header: string) => {
        const json = Buffer.from(header);
        const padded = json.length + ((4 - (json.length % 4)) % 4);
        const head = Buffer.alloc(16);
        head.writeUInt32LE(4, 0);
        head.writeUInt32LE(8 + padded, 4);
        head.writeUInt32LE(4 + padded, 8);
        head.writeInt32LE(json.length, 12);
        return Buffer.concat([head, json, Buffer.alloc(padded - json.length), Buffer.from('hi')]);
      };
      writeFileSync(join(dir, 'usual.asar'), asar('{"files":{"a.txt":{"size":2,"offset":"0"}}}'));
      writeFileSync(join(dir, 'ordered'), asar('{"meta":1,"files":{"a.txt":{"size":2,"offset":"0"}}}'));
      for (const name of ['usual.asar', 'ordered'])
        expect(await detectTarget(join(dir, name))).toMatchObject({ kind: 'asar', format: 'asar' });
      // Four bytes of 4 then anything else is no pickle of a JSON header.
      writeFileSync(join(dir, 'ints'), Buffer.from([4, 0, 0, 0, 1, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 0x7b, 0x7d]));
      expect(await detectTarget(join(dir, 'ints'))).toMatchObject({ kind: 'file' });
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
