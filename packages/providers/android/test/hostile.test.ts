// Hostile input: truncated and mutated packages, lying string pools, out-of-range DEX indexes, a huge
// code item, colliding entries, and random bytes through every parser. Each ends in a typed refusal
// or partial coverage, never a crash.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { isReaError } from '@rea/evidence';
import {
  DexFile,
  ResourceTable,
  disassemble,
  inspectAndroidMethodTool,
  inspectAndroidPackageTool,
  parseBinaryXml,
} from '../src/index.js';
import { SAMPLES, runTool } from './support.js';

const APK = `${SAMPLES}/android/TestsAndroguard/bin/TestActivity.apk`;
const DEX = `${SAMPLES}/tests/okhttp.d8.038.dex`;
let dir: string;
let manifest: Buffer;
let arsc: Buffer;
let dex: Buffer;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-hostile-'));
  manifest = execFileSync('unzip', ['-p', APK, 'AndroidManifest.xml']);
  arsc = execFileSync('unzip', ['-p', APK, 'resources.arsc']);
  dex = readFileSync(DEX);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `fn`; a thrown error must be a typed ReaError. */
function typedOrResult(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    if (!isReaError(error)) throw error;
    expect(error.code).toBe('unsupported_target');
  }
}

describe('parsers under random and mutated bytes (fast-check)', () => {
  const mutate = (base: () => Buffer) =>
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 16 }).map((edits) => {
      const copy = Buffer.from(base());
      for (const [at, value] of edits) copy[at % copy.length] = value;
      return copy;
    });

  it('binary XML: mutated manifests and random bytes decode or refuse as malformed', () => {
    fc.assert(
      fc.property(
        mutate(() => manifest),
        (bytes) => typedOrResult(() => parseBinaryXml(bytes)),
      ),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) =>
        typedOrResult(() => parseBinaryXml(Buffer.from(bytes))),
      ),
      { numRuns: 300 },
    );
  });

  it('resources.arsc: mutated tables decode, resolve and summarize or refuse as malformed', () => {
    fc.assert(
      fc.property(
        mutate(() => arsc),
        fc.integer({ min: 0x7f010000, max: 0x7f0a00ff }),
        (bytes, id) =>
          typedOrResult(() => {
            const table = new ResourceTable(bytes);
            table.summary();
            table.resolve(id);
          }),
      ),
      { numRuns: 200 },
    );
  });

  it('DEX: mutated files list every class and disassemble every method or refuse as malformed', () => {
    const small = () => dex.subarray(0, dex.length);
    fc.assert(
      fc.property(mutate(small), (bytes) =>
        typedOrResult(() => {
          const file = new DexFile(bytes);
          for (let i = 0; i < Math.min(file.classDefs.size, 40); i++) {
            const def = file.classDef(i);
            file.type(def.classIdx);
            const data = file.classData(def.classDataOff);
            for (const m of [...data.directMethods, ...data.virtualMethods]) {
              file.method(m.index);
              if (m.codeOff !== 0) {
                const code = file.code(m.codeOff);
                disassemble(file, code.insnsOff, code.insnsSize, 2000);
              }
            }
          }
        }),
      ),
      { numRuns: 60 },
    );
  });
});

describe('crafted faults', () => {
  it('a manifest whose string pool claims more strings than it holds is refused as malformed', () => {
    const lying = Buffer.from(manifest);
    const pool = 8; // the string pool follows the 8-byte file header
    expect(lying.readUInt16LE(pool)).toBe(0x0001);
    lying.writeUInt32LE(0x00ffffff, pool + 8);
    expect(() => parseBinaryXml(lying)).toThrow(
      expect.objectContaining({
        code: 'unsupported_target',
        details: expect.objectContaining({ reason: 'malformed' }),
      }),
    );
  });

  it('string references past the pool read as empty and are counted, not thrown', () => {
    const doc = parseBinaryXml(manifest);
    const bad = Buffer.from(manifest);
    // Point the root element's name at a string index far past the pool.
    const pool = bad.readUInt32LE(8 + 4);
    let at = 8 + pool;
    while (bad.readUInt16LE(at) !== 0x0102) at += bad.readUInt32LE(at + 4);
    bad.writeUInt32LE(0x7fffffff, at + 16 + 4);
    const decoded = parseBinaryXml(bad);
    expect(decoded.root?.name).toBe('');
    expect(decoded.stringFaults).toBeGreaterThan(doc.stringFaults);
  });

  it('a DEX whose method ids point past the type table reads placeholders and counts them', () => {
    const bad = Buffer.from(dex);
    const methodsOff = bad.readUInt32LE(92);
    bad.writeUInt16LE(0xffff, methodsOff); // class_idx of method 0
    const file = new DexFile(bad);
    expect(file.method(0).className).toMatch(/^<bad type 0x/);
    expect(file.faults).toBeGreaterThan(0);
    expect(file.method(file.methods.size + 5).className).toMatch(/^<bad method/);
  });

  it('a DEX whose id table runs past the file is refused as malformed', () => {
    const bad = Buffer.from(dex);
    bad.writeUInt32LE(0x0fffffff, 56); // string_ids_size
    expect(() => new DexFile(bad)).toThrow(expect.objectContaining({ code: 'unsupported_target' }));
  });

  it('a code item claiming a huge instruction array is refused without reading past the file', () => {
    const file = new DexFile(dex);
    const def = file.classDef(0);
    const data = file.classData(def.classDataOff);
    const m = [...data.directMethods, ...data.virtualMethods].find((x) => x.codeOff !== 0)!;
    const bad = Buffer.from(dex);
    bad.writeUInt32LE(0xfffffff0, m.codeOff + 12);
    expect(() => new DexFile(bad).code(m.codeOff)).toThrow(expect.objectContaining({ code: 'unsupported_target' }));
  });

  it('a truncated APK is a typed refusal', async () => {
    const cut = join(dir, 'rea-truncated.apk');
    writeFileSync(cut, readFileSync(APK).subarray(0, 40_000));
    await expect(runTool(inspectAndroidPackageTool, { path: cut })).rejects.toMatchObject({
      code: 'unsupported_target',
      details: { reason: 'malformed' },
    });
  });

  it('an APK whose manifest entry is corrupted reports partial coverage, the rest intact', async () => {
    const work = join(dir, 'mutated');
    execFileSync('mkdir', ['-p', work]);
    execFileSync('unzip', ['-q', APK, '-d', work]);
    writeFileSync(join(work, 'AndroidManifest.xml'), Buffer.from('not binary xml at all'));
    const apk = join(dir, 'rea-mutated.apk');
    execFileSync('zip', ['-q', '-r', apk, '.'], { cwd: work });
    const { normalized_result, coverage } = await runTool<{ units: { manifest: unknown; dex: unknown[] }[] }>(
      inspectAndroidPackageTool,
      { path: apk },
    );
    expect(normalized_result.units[0]!.manifest).toBeNull();
    expect(normalized_result.units[0]!.dex.length).toBe(1);
    expect(coverage).toMatchObject({ status: 'partial', reasons: expect.arrayContaining(['manifest-unreadable']) });
  });

  it('zip entries whose names collide are refused by the container reader, typed', async () => {
    const apk = join(dir, 'rea-colliding.apk');
    copyFileSync(APK, apk);
    // Append a second AndroidManifest.xml entry under the same name.
    const work = join(dir, 'dup');
    execFileSync('mkdir', ['-p', work]);
    writeFileSync(join(work, 'AndroidManifest.xml'), manifest);
    execFileSync(
      'python3',
      [
        '-c',
        `import zipfile,sys\nz=zipfile.ZipFile(sys.argv[1],'a')\nz.write(sys.argv[2],'AndroidManifest.xml')\nz.close()`,
        apk,
        join(work, 'AndroidManifest.xml'),
      ],
      { stdio: 'ignore' },
    );
    const error: unknown = await runTool(inspectAndroidPackageTool, { path: apk }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isReaError(error)).toBe(true);
  });

  it('an ambiguous overloaded method is invalid_request listing the descriptors', async () => {
    const file = new DexFile(dex);
    let found: { cls: string; name: string; descriptors: string[] } | null = null;
    for (let i = 0; i < file.classDefs.size && found === null; i++) {
      const def = file.classDef(i);
      const data = file.classData(def.classDataOff);
      const byName = new Map<string, string[]>();
      for (const m of [...data.directMethods, ...data.virtualMethods]) {
        const ref = file.method(m.index);
        const d = `(${ref.proto.parameters.join('')})${ref.proto.returnType}`;
        byName.set(ref.name, [...(byName.get(ref.name) ?? []), d]);
      }
      for (const [name, descriptors] of byName) {
        if (descriptors.length > 1 && name !== '<init>') found = { cls: file.type(def.classIdx), name, descriptors };
      }
    }
    expect(found).not.toBeNull();
    await expect(
      runTool(inspectAndroidMethodTool, { path: DEX, class: found!.cls, method: found!.name }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      details: { reason: 'ambiguous-method', descriptors: found!.descriptors },
    });
    const one = await runTool<{ descriptor: string }>(inspectAndroidMethodTool, {
      path: DEX,
      class: found!.cls,
      method: found!.name,
      descriptor: found!.descriptors[1],
    });
    expect(one.normalized_result.descriptor).toBe(found!.descriptors[1]);
  });
});

describe('DEX containers', () => {
  it('bytes after the first DEX section are reported as not read, not ignored silently', async () => {
    const path = join(dir, 'rea-container.dex');
    writeFileSync(path, Buffer.concat([dex, dex]));
    const { limitations, coverage } = await runTool(inspectAndroidPackageTool, { path });
    expect(limitations).toContainEqual(
      expect.objectContaining({ kind: 'dex-container-rest', message: expect.stringContaining(String(dex.length)) }),
    );
    expect(coverage.status).toBe('partial');
  });
});
