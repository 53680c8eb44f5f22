// A DEX version 041 container holds several DEX sections one after another, each with its own header
// (0x78 bytes: container_size at 0x70, header_offset at 0x74) and file_size leading to the next one;
// every offset inside a section is relative to the start of the container, so sections may share data.
// The container here is made at test time from a real DEX of androguard's samples: its first half of
// classes stays in the first section, a second header after it names the second half, both sharing
// the original data; the classes and methods read are checked against `dexdump` of the original file.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DexFile, inspectAndroidClassTool, inspectAndroidPackageTool, searchAndroidClassesTool } from '../src/index.js';
import { SAMPLES, output, runTool } from './support.js';

const ORIGINAL = `${SAMPLES}/obfu/classes_tc.dex`;
let dir: string;
let container: string;
let split: number;

/** dexdump's classes of the original file, in order, with their methods as `name(params)return`. */
function dexdumpClasses(): { descriptor: string; methods: string[] }[] {
  return output('dexdump', [ORIGINAL])
    .split(/^Class #\d+ +-$/m)
    .slice(1)
    .map((block) => ({
      descriptor: /Class descriptor {2}: '([^']+)'/.exec(block)![1]!,
      methods: [...block.matchAll(/^ {6}name {10}: '([^']+)'\n {6}type {10}: '(\([^']*)'$/gm)].map(
        (m) => `${m[1]}${m[2]}`,
      ),
    }));
}

/** The container: the original file (header made version 041) followed by a second section header. */
function makeContainer(): Buffer {
  const a = Buffer.from(readFileSync(ORIGINAL));
  const classes = a.readUInt32LE(96);
  split = Math.floor(classes / 2);
  const strings = a.readUInt32LE(56);
  const stringIds = a.subarray(a.readUInt32LE(60), a.readUInt32LE(60) + strings * 4);
  // Section 2: a 0x78-byte header, then the string_ids moved out of the way of the longer header.
  const second = Buffer.alloc(0x78 + stringIds.length);
  a.copy(second, 0, 0, 0x70);
  stringIds.copy(second, 0x78);
  const total = a.length + second.length;
  const movedIds = a.length + 0x78;
  for (const [header, at, size] of [
    [a, 0, a.length],
    [second, a.length, second.length],
  ] as const) {
    header.write('dex\n041\0', 0, 'latin1');
    header.writeUInt32LE(size, 32); // file_size: this section
    header.writeUInt32LE(0x78, 36); // header_size
    header.writeUInt32LE(movedIds, 60); // string_ids_off (shared)
    header.writeUInt32LE(total, 0x70); // container_size
    header.writeUInt32LE(at, 0x74); // header_offset
  }
  a.writeUInt32LE(split, 96); // the first section defines the first half of the classes
  second.writeUInt32LE(classes - split, 96); // the second, the rest (class_defs shared)
  second.writeUInt32LE(a.readUInt32LE(100) + split * 32, 100);
  return Buffer.concat([a, second]);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-container-'));
  container = join(dir, 'classes.dex');
  writeFileSync(container, makeContainer());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('DEX 041 containers', () => {
  it('reads every section of a container, each with its own classes, as dexdump lists the original', async () => {
    const expected = dexdumpClasses();
    expect(split).toBeGreaterThan(0);
    expect(DexFile.sections(readFileSync(container))).toEqual([0, readFileSync(ORIGINAL).length]);
    const { normalized_result, limitations } = await runTool<{
      units: { dex: { path: string; version: string; classes: number }[] }[];
    }>(inspectAndroidPackageTool, { path: container });
    expect(normalized_result.units[0]!.dex.map((d) => [d.path, d.version, d.classes])).toEqual([
      ['classes.dex', '041', split],
      ['classes.dex#2', '041', expected.length - split],
    ]);
    expect(limitations.map((l) => l.kind)).not.toContain('dex-container-rest');
    const search = await runTool<{ classes: { descriptor: string; dex: string }[] }>(searchAndroidClassesTool, {
      path: container,
      query: '',
      limit: 100,
    });
    expect(search.normalized_result.classes.map((c) => c.descriptor).sort()).toEqual(
      expected.map((c) => c.descriptor).sort(),
    );
    const later = expected[expected.length - 1]!;
    expect(search.normalized_result.classes.find((c) => c.descriptor === later.descriptor)?.dex).toBe('classes.dex#2');
    const cls = await runTool<{ methods: { name: string; descriptor: string }[] }>(inspectAndroidClassTool, {
      path: container,
      class: later.descriptor,
    });
    expect(cls.normalized_result.methods.map((m) => `${m.name}${m.descriptor}`)).toEqual(later.methods);
  });
});
