// Once a process has hashed a large package, a digest thread computes the whole-file digests (SHA-256,
// the v2/v3 content digests, the CRC-32 of a resource table left in the file) of the packages it reads
// next, and inspect_android_package decodes the package on its own thread meanwhile. These tests run
// the real thread (the built worker module) on the framework APK androguard ships, on an APK apksigner
// signs, and on damaged copies of them, and check each answer against the same call with the thread
// stopped, and against digests computed here.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectAndroidPackageTool, searchAndroidClassesTool } from '../src/index.js';
import { loadPackage } from '../src/package/load.js';
import { inspectUnit } from '../src/model/inspect.js';
import { digestThreadOnline, startDigestThread, stopDigestThread } from '../src/signing/digestThread.js';
import { giveBackLarge, takeLarge } from '../src/format/scratch.js';
import { quietToolContext } from '@rea/test-helpers';
import { SAMPLES, signGoldenApk } from './support.js';

const FRAMEWORK = `${SAMPLES}/tests/lineageos_nexus5_framework-res.apk`;
const DEX = `${SAMPLES}/tests/fdroid/org.andstatus.app_254.dex`;
let dir: string;
let signed: string;
let copies = 0;

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Where the data of an APK's resources.arsc entry starts, from its local header. */
function tableData(apk: Buffer): number {
  const header = apk.indexOf(Buffer.from('resources.arsc')) - 30;
  return header + 30 + apk.readUInt16LE(header + 26) + apk.readUInt16LE(header + 28);
}

/** A copy of the framework APK named `name`, with its resource table's byte at `at` xored with `mask`. */
function frameworkWithTableByteFlipped(name: string, at: number, mask: number): string {
  const bytes = readFileSync(FRAMEWORK);
  bytes[tableData(bytes) + at]! ^= mask;
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** Makes this process one that has asked for the kept buffer before: its next whole read is granted. */
function warmLargeBuffer(): void {
  const ask = takeLarge(1);
  if (ask !== null) giveBackLarge(ask);
}

const resourcesOf = (inspection: { result: unknown }) =>
  (inspection.result as { units: { resources: unknown }[] }).units[0]!.resources;

/** A fresh copy of `path` (no cache of an earlier call can answer for it). */
function copyOf(path: string): string {
  const copy = join(dir, `${copies++}-${path.split('/').pop()}`);
  copyFileSync(path, copy);
  return copy;
}

async function threadOnline(): Promise<void> {
  startDigestThread();
  for (let i = 0; i < 200 && !digestThreadOnline(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(digestThreadOnline()).toBe(true);
}

async function inspect(path: string, verify: boolean) {
  const out = (await inspectAndroidPackageTool.run(
    inspectAndroidPackageTool.input.parse({ path, verify_signatures: verify }) as never,
    quietToolContext(),
  )) as unknown as { subject: { sha256: string }; normalized_result: unknown; limitations: unknown[] };
  return { subject: out.subject, result: out.normalized_result, limitations: out.limitations };
}

/** The same call with the thread stopped and with it running, on two fresh copies of `path`. */
async function bothWays(path: string, verify: boolean) {
  await stopDigestThread();
  const before = await inspect(copyOf(path), verify);
  await threadOnline();
  const after = await inspect(copyOf(path), verify);
  return { before, after };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rea-android-thread-'));
  signed = signGoldenApk(join(dir, 'signed.apk'));
}, 120_000);
afterAll(async () => {
  await stopDigestThread();
  rmSync(dir, { recursive: true, force: true });
});

describe('the digest thread', () => {
  it('starts in a process that has hashed a second large file, not the first', async () => {
    await stopDigestThread();
    // The first large file this process hashes itself (the calls above the thread started by hand
    // hashed none): as a command line reading one package, no thread.
    await inspect(copyOf(FRAMEWORK), false);
    expect(digestThreadOnline()).toBe(false);
    for (let i = 0; i < 200 && !digestThreadOnline(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(digestThreadOnline()).toBe(false);
    await inspect(copyOf(FRAMEWORK), false);
    for (let i = 0; i < 200 && !digestThreadOnline(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(digestThreadOnline()).toBe(true);
  }, 120_000);

  it('lets a load come back before its digests, and fills them in with the file’s own', async () => {
    await threadOnline();
    const copy = copyOf(FRAMEWORK);
    const loaded = await loadPackage(copy, undefined, undefined, true, true);
    expect(loaded.settled).toBeInstanceOf(Promise);
    expect(loaded.units[0]!.resourcesAt).toMatchObject({ size: 19_611_716 });
    await expect(loaded.settled).resolves.toBe(true);
    expect(loaded.settled).toBeUndefined();
    expect(loaded.subject.sha256).toBe(sha256(FRAMEWORK));
  }, 120_000);

  it('holds no process open: the thread is no active handle once started, or once a job is answered', async () => {
    await stopDigestThread();
    const ports = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;
    const before = ports();
    await threadOnline();
    expect(ports()).toBe(before);
    // A job posted to it and answered.
    await inspect(copyOf(FRAMEWORK), false);
    expect(digestThreadOnline()).toBe(true);
    expect(ports()).toBe(before);
  }, 120_000);

  it('gives the framework APK the same Evidence as the calling thread does', async () => {
    for (const verify of [false, true]) {
      const { before, after } = await bothWays(FRAMEWORK, verify);
      expect(after.subject.sha256).toBe(sha256(FRAMEWORK));
      expect(after).toEqual(before);
    }
  }, 240_000);

  it('refuses a FIFO at once, without waiting for a writer, while the thread runs', async () => {
    await threadOnline();
    const fifo = join(dir, 'pipe.apk');
    execFileSync('mkfifo', [fifo]);
    for (const verify of [false, true]) {
      await expect(
        inspectAndroidPackageTool.run(
          inspectAndroidPackageTool.input.parse({ path: fifo, verify_signatures: verify }) as never,
          quietToolContext(),
        ),
      ).rejects.toMatchObject({ code: 'unsupported_target', details: { reason: 'not-a-file' } });
    }
  }, 60_000);

  it('gives the content digests apksigner signed: every scheme verifies', async () => {
    const { before, after } = await bothWays(signed, true);
    expect(after).toEqual(before);
    const verification = (after.result as { signature_verification: { scheme: string; status: string }[] })
      .signature_verification;
    expect(verification.map((v) => [v.scheme, v.status])).toEqual([
      ['v1', 'verified'],
      ['v2', 'verified'],
      ['v3', 'verified'],
      ['v3.1', 'absent'],
    ]);
    expect(after.subject.sha256).toBe(sha256(signed));
  }, 120_000);

  it('does not analyze a table decoded meanwhile whose bytes then contradict its CRC-32', async () => {
    const flipped = frameworkWithTableByteFlipped('table-flipped.apk', 5_000_000, 0x01);
    await threadOnline();
    const loaded = await loadPackage(copyOf(flipped), undefined, undefined, false, true);
    await expect(loaded.settled).resolves.toBe(false);
    const { before, after } = await bothWays(flipped, false);
    expect(after).toEqual(before);
    expect(after.limitations).toContainEqual(
      expect.objectContaining({ kind: 'integrity-contradicted', scope: 'resources.arsc' }),
    );
    expect(resourcesOf(after)).toBeNull();
    expect(after.subject.sha256).toBe(sha256(flipped));
  }, 240_000);

  it('decodes a table read whole into the kept buffer as one read through pages, and checks both', async () => {
    await threadOnline();
    const flipped = frameworkWithTableByteFlipped('table-flipped-late.apk', 12_000_000, 0x80);
    // A process's first whole read is refused; this one has asked before, or asks now.
    warmLargeBuffer();
    const whole = await inspect(copyOf(FRAMEWORK), false);
    const wholeFlipped = await inspect(copyOf(flipped), false);
    // With the kept buffer lent elsewhere, the table is read through pages.
    const lent = takeLarge(1);
    expect(lent).not.toBeNull();
    try {
      expect(takeLarge(1)).toBeNull();
      expect(await inspect(copyOf(FRAMEWORK), false)).toEqual(whole);
      expect(await inspect(copyOf(flipped), false)).toEqual(wholeFlipped);
    } finally {
      giveBackLarge(lent!);
    }
    expect(whole.subject.sha256).toBe(sha256(FRAMEWORK));
    expect(resourcesOf(whole)).not.toBeNull();
    expect(wholeFlipped.limitations).toContainEqual(
      expect.objectContaining({ kind: 'integrity-contradicted', scope: 'resources.arsc' }),
    );
    expect(resourcesOf(wholeFlipped)).toBeNull();
  }, 240_000);

  it('reads a table cut short since its load through pages, as before, when it cannot read it whole', async () => {
    const loaded = await loadPackage(copyOf(FRAMEWORK), undefined, undefined, false, false);
    const unit = loaded.units[0]!;
    expect(unit.resourcesAt).not.toBeNull();
    // The kept buffer is free and this process has asked for it before: a table is read whole.
    warmLargeBuffer();
    const whole = inspectUnit(unit, []);
    expect(whole.resources).not.toBeNull();
    // Its entry now claims three 64 KiB pages more than the table's header declares, and the file ends
    // with the table's last page: the decoding never looks past it, but the table cannot be read whole.
    const at = unit.resourcesAt!;
    const PAGE = 64 * 1024;
    const cut = join(dir, 'cut.apk');
    writeFileSync(cut, readFileSync(at.file).subarray(0, at.offset + Math.ceil(at.size / PAGE) * PAGE));
    const shortUnit = { ...unit, resourcesAt: { file: cut, offset: at.offset, size: at.size + 3 * PAGE } };
    const limitations: unknown[] = [];
    expect(inspectUnit(shortUnit, limitations as never)).toEqual(whole);
    expect(limitations).toEqual([]);
    // And the same through pages from the start, while the kept buffer is lent elsewhere.
    const lent = takeLarge(1);
    try {
      expect(inspectUnit(shortUnit, [])).toEqual(whole);
    } finally {
      giveBackLarge(lent!);
    }
  }, 120_000);

  it('checks a table over 32 MiB with reads that stay asynchronous, and finds a byte flipped past its decoding', async () => {
    // The framework's table, stored, padded past 32 MiB with bytes the decoding never reads.
    const source = readFileSync(FRAMEWORK);
    const data = tableData(source);
    const table = Buffer.concat([
      // The table's header states its size.
      source.subarray(data, data + source.readUInt32LE(data + 4)),
      Buffer.alloc(14 << 20, 0x5a),
    ]);
    expect(table.length).toBeGreaterThan(32 << 20);
    const manifest = execFileSync('unzip', ['-p', FRAMEWORK, 'AndroidManifest.xml'], { maxBuffer: 1 << 24 });
    const build = (path: string, tableBytes: Buffer) => {
      writeFileSync(`${path}.arsc`, tableBytes);
      writeFileSync(`${path}.xml`, manifest);
      execFileSync('python3', [
        '-c',
        [
          'import sys, zipfile',
          'z = zipfile.ZipFile(sys.argv[1], "w")',
          'z.write(sys.argv[2], "AndroidManifest.xml", zipfile.ZIP_DEFLATED)',
          'z.write(sys.argv[3], "resources.arsc", zipfile.ZIP_STORED)',
          'z.close()',
        ].join('\n'),
        path,
        `${path}.xml`,
        `${path}.arsc`,
      ]);
    };
    const large = join(dir, 'large-table.apk');
    build(large, table);
    // A byte of the stored table flipped in the file, past what the decoding reads: only its CRC-32 tells.
    const bytes = readFileSync(large);
    const at = bytes.indexOf(table.subarray(table.length - 64, table.length - 32)) - 1_000;
    bytes[at]! ^= 0x01;
    const flipped = join(dir, 'large-table-flipped.apk');
    writeFileSync(flipped, bytes);
    // The same Evidence with the thread as without, the table analyzed, and its flipped copy refused.
    const good = await bothWays(large, false);
    expect(good.after).toEqual(good.before);
    expect(resourcesOf(good.after)).not.toBeNull();
    const bad = await bothWays(flipped, false);
    expect(bad.after).toEqual(bad.before);
    expect(bad.after.limitations).toContainEqual(
      expect.objectContaining({ kind: 'integrity-contradicted', scope: 'resources.arsc' }),
    );
    expect(bad.after.subject.sha256).toBe(sha256(flipped));
  }, 240_000);

  it('hashes a DEX file while it is read, to the same SHA-256', async () => {
    await stopDigestThread();
    const listing = async (path: string) => {
      const out = (await searchAndroidClassesTool.run(
        searchAndroidClassesTool.input.parse({ path, limit: 50 }) as never,
        quietToolContext(),
      )) as unknown as { subject: { sha256: string }; normalized_result: unknown; limitations: unknown[] };
      return { subject: out.subject, result: out.normalized_result, limitations: out.limitations };
    };
    const before = await listing(copyOf(DEX));
    await threadOnline();
    const after = await listing(copyOf(DEX));
    expect(after).toEqual(before);
    expect(after.subject.sha256).toBe(sha256(DEX));
  }, 120_000);

  it('leaves no descriptor open when the call is cancelled, or when no load takes the hashing over', async () => {
    await threadOnline();
    const fds = () => readdirSync('/proc/self/fd').length;
    const open = fds();
    for (const wait of [0, 5, 20]) {
      const controller = new AbortController();
      const loading = loadPackage(copyOf(FRAMEWORK), controller.signal, undefined, true, true);
      setTimeout(() => controller.abort(), wait);
      // Cancelled before it comes back, or after, when the digests it waits for are given up.
      const outcome = await loading.then(
        (loaded) => loaded.settled ?? true,
        (error: unknown) => error,
      );
      if (typeof outcome !== 'boolean') expect(outcome).toMatchObject({ code: 'cancelled' });
      const context = { ...quietToolContext(), signal: controller.signal };
      await expect(
        inspectAndroidPackageTool.run(inspectAndroidPackageTool.input.parse({ path: FRAMEWORK }) as never, context),
      ).rejects.toMatchObject({ code: 'cancelled' });
    }
    // A hashing begun for a package no load then takes over (a DEX file, a package opened already).
    const dex = copyOf(DEX);
    for (let i = 0; i < 2; i++) await inspect(dex, false);
    // A load cancelled while the thread still read its file closes it once the thread has stopped.
    for (let i = 0; i < 100 && fds() !== open; i++) await new Promise((r) => setTimeout(r, 50));
    expect(fds()).toBe(open);
  }, 120_000);
});
