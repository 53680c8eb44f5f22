// A large stored resources.arsc is left in the APK: its CRC-32 is checked in the read that hashes the
// file, and it is decoded through a few reused pages of the file. Checked on the 28 MB framework APK
// androguard ships (19.6 MB table): the report is what decoding the table from memory gives and what
// aapt says; a table whose bytes contradict their CRC-32 is not analyzed; and the paged view reads
// exactly what a view of the same bytes in memory reads, across pages and past its end.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResourceTable, inspectAndroidPackageTool } from '../src/index.js';
import { Bytes } from '../src/format/bytes.js';
import { FileBytes } from '../src/format/fileBytes.js';
import { inspectPackage } from '../src/model/inspect.js';
import { loadPackage } from '../src/package/load.js';
import { SAMPLES, output, runTool } from './support.js';

const FRAMEWORK = `${SAMPLES}/tests/lineageos_nexus5_framework-res.apk`;
let dir: string;

interface Report {
  units: { manifest: { package: string; version_code: number | null } | null; resources: unknown }[];
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-table-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a resource table read from the file', () => {
  it('reports what the table decoded in memory gives, and what aapt says of the package', async () => {
    const loaded = await loadPackage(FRAMEWORK, undefined);
    expect(loaded.units[0]!.resources).toBeNull();
    expect(loaded.units[0]!.resourcesAt).toMatchObject({ file: FRAMEWORK, size: 19_611_716 });
    const { normalized_result, limitations } = await runTool<Report>(inspectAndroidPackageTool, { path: FRAMEWORK });
    const tableBytes = execFileSync('unzip', ['-p', FRAMEWORK, 'resources.arsc'], { maxBuffer: 1 << 26 });
    const table = new ResourceTable(tableBytes);
    expect(normalized_result.units[0]!.resources).toEqual(table.summary());
    expect(limitations.filter((l) => l.scope === 'resources.arsc')).toEqual([]);
    const badging = output('aapt', ['dump', 'badging', FRAMEWORK]);
    const [, name, code] = /^package: name='([^']+)' versionCode='([^']*)'/m.exec(badging)!;
    expect(normalized_result.units[0]!.manifest).toMatchObject({ package: name, version_code: Number(code) });
    // The whole report (manifest with its resolved labels, resources, …) is the in-memory one.
    const inMemory = { ...loaded, units: [{ ...loaded.units[0]!, resources: tableBytes, resourcesAt: null }] };
    expect(inspectPackage(loaded)).toEqual(inspectPackage(inMemory));
  }, 120_000);

  it('does not analyze a table whose bytes contradict its CRC-32', async () => {
    const bytes = readFileSync(FRAMEWORK);
    const at = bytes.indexOf(Buffer.from('resources.arsc'));
    // The local header names the entry: its data follows the name and extra field.
    const header = at - 30;
    const data = header + 30 + bytes.readUInt16LE(header + 26) + bytes.readUInt16LE(header + 28);
    bytes[data + 1_000_000]! ^= 0x01;
    const apk = join(dir, 'table-flipped.apk');
    writeFileSync(apk, bytes);
    const { normalized_result, limitations } = await runTool<Report>(inspectAndroidPackageTool, { path: apk });
    expect(limitations).toContainEqual(
      expect.objectContaining({ kind: 'integrity-contradicted', scope: 'resources.arsc' }),
    );
    expect(normalized_result.units[0]!.resources).toBeNull();
    expect(normalized_result.units[0]!.manifest?.package).toBe('android');
  }, 120_000);

  it('reads through its pages what the same bytes in memory read', () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 123);
    const path = join(dir, 'pages.bin');
    writeFileSync(path, bytes);
    const fd = openSync(path, 'r');
    try {
      const base = 17;
      const memory = new Bytes(bytes.subarray(base), 'resources.arsc');
      const file = new FileBytes(fd, base, bytes.length - base, 'resources.arsc');
      expect(file.length).toBe(memory.length);
      const page = 64 * 1024;
      // Page edges (reads that straddle two pages), then scattered offsets that evict pages.
      const offsets = [0, page - 1, page - 2, page - 3, 5 * page - 1, memory.length - 4];
      for (let i = 0; i < 400; i++) offsets.push(bytes.readUInt32LE(i * 4) % (memory.length - 8));
      for (const o of offsets) {
        expect([o, file.u8(o), file.u16(o), file.u32(o), file.i32(o)]).toEqual([
          o,
          memory.u8(o),
          memory.u16(o),
          memory.u32(o),
          memory.i32(o),
        ]);
        expect(file.slice(o, 3).equals(memory.slice(o, 3))).toBe(true);
        expect(file.text('latin1', o, o + 4)).toBe(memory.text('latin1', o, o + 4));
      }
      expect(file.slice(page - 100, 3 * page).equals(memory.slice(page - 100, 3 * page))).toBe(true);
      expect(() => file.u32(memory.length - 2)).toThrow(expect.objectContaining({ code: 'unsupported_target' }));
      expect(() => memory.u32(memory.length - 2)).toThrow(expect.objectContaining({ code: 'unsupported_target' }));
    } finally {
      closeSync(fd);
    }
  });
});
