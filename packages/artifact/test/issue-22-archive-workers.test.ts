import { afterEach, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { inspectArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { DigestPool } from '../src/engine/digestPool.js';
import { readDirectory } from '../src/inventory/zip.js';
import { digestWorkerTasks, digestWorkerThreshold } from '../src/inventory/digestTasks.js';
import { buildZip } from './helpers/zipWriter.js';
import type { ZipSpec } from './helpers/zipWriter.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const threads = (): number => readdirSync('/proc/self/task').length;
const usual = digestWorkerThreshold.bytes;

afterEach(() => {
  digestWorkerThreshold.bytes = usual;
});

/** Files of every kind the inventory reads, and entries whose headers lie in every way it checks. */
function specs(): ZipSpec[] {
  const text = Buffer.from('const value = 42; // a line of ordinary source text\n'.repeat(300));
  const out: ZipSpec[] = [];
  for (let i = 0; i < 240; i += 1) {
    const data = i % 3 === 0 ? randomBytes(100 + i * 37) : Buffer.concat([text, Buffer.from(String(i))]);
    out.push({ name: `src/d${i % 7}/f${i}.txt`, data, method: i % 5 === 0 ? 0 : 8 });
  }
  const big = Buffer.concat([randomBytes(1_500_000), text]);
  const inner = buildZip([{ name: 'inner/a.txt', data: Buffer.from('nested text') }]);
  out.push(
    { name: 'big/deflated.bin', data: big },
    { name: 'big/stored.bin', data: big, method: 0 },
    { name: 'big/bad-crc.bin', data: big, crc: 7 },
    { name: 'big/short.bin', data: big, declaredSize: 1_000_000 },
    { name: 'small/bad-crc.txt', data: text, crc: 42 },
    { name: 'small/too-short.txt', data: text, declaredSize: 100 },
    { name: 'small/too-long.txt', data: text, declaredSize: text.length + 500 },
    { name: 'small/descriptor.txt', data: text, dataDescriptor: true },
    { name: 'small/encrypted.txt', data: text, encrypted: true },
    { name: 'small/empty.txt', data: Buffer.alloc(0) },
    { name: 'link', data: Buffer.from('src/d0/f0.txt'), mode: 0o120777 },
    { name: 'lib/inner.zip', data: inner },
    { name: '../outside.txt', data: text },
    { name: 'dir/', mode: 0o040755 },
  );
  return out;
}

describe('inventory of a large ZIP on worker threads', () => {
  it('reports exactly what the single-threaded inventory reports, lies included', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'mixed.zip');
      writeFileSync(file, buildZip(specs()));
      digestWorkerThreshold.bytes = Number.POSITIVE_INFINITY;
      const alone = await inspectArtifact(file, { integrityPolicy: 'record-and-continue' });
      digestWorkerThreshold.bytes = 0;
      const before = threads();
      const pooled = await inspectArtifact(file, { integrityPolicy: 'record-and-continue' });
      expect(pooled).toEqual(alone);
      expect(pooled.subject.sha256).toBe(sha(readFileSync(file)));
      expect(pooled.inventory.integrity_contradictions.map((c) => c.path).sort()).toEqual(
        ['big/bad-crc.bin', 'big/short.bin', 'small/bad-crc.txt', 'small/too-long.txt', 'small/too-short.txt'].sort(),
      );
      expect(pooled.inventory.entries.some((e) => e.path === 'lib/inner.zip!/inner/a.txt')).toBe(true);
      // The workers are gone once the call has answered.
      expect(threads()).toBe(before);
    });
  });

  it('hashes each entry a worker handles as its bytes are, and leaves every lying entry to the reader', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'mixed.zip');
      const all = specs();
      writeFileSync(file, buildZip(all));
      const { reader, infos } = await readDirectory(file, 10_000);
      digestWorkerThreshold.bytes = 0;
      const tasks = digestWorkerTasks(infos, 1 << 20);
      const pool = await DigestPool.start(file, tasks);
      try {
        expect(pool).not.toBeNull();
        const lying = new Set(['big/bad-crc.bin', 'big/short.bin', 'small/bad-crc.txt']);
        const refused = new Set(['small/too-short.txt', 'small/too-long.txt', 'big/short.bin']);
        let handled = 0;
        for (let index = 0; index < infos.length; index += 1) {
          const info = infos[index]!;
          const taken = pool!.take(index);
          const spec = all.find((s) => s.name === info.name)!;
          if (info.kind === 'directory' || info.encrypted) {
            expect(taken).toBeUndefined();
            continue;
          }
          const result = await taken;
          if (refused.has(info.name)) {
            expect(result).toBeNull();
            continue;
          }
          handled += 1;
          const data = spec.data ?? Buffer.alloc(0);
          expect(result).toMatchObject({ index, sha256: sha(data), crc32: crc32(data) >>> 0 });
          expect(result!.crc32 === info.crc32).toBe(!lying.has(info.name));
          expect(Buffer.from(result!.head)).toEqual(data.subarray(0, 16));
          // Only what may be a container (or a link target) is carried back.
          expect(result!.collected === null).toBe(!['lib/inner.zip', 'link'].includes(info.name));
        }
        expect(handled).toBeGreaterThan(240);
      } finally {
        await pool?.close();
        reader.close();
      }
    });
  });

  it('ends its workers when the inventory is cancelled while they run', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'heavy.zip');
      const heavy = Array.from({ length: 24 }, (_, i) => ({ name: `heavy/${i}.bin`, data: randomBytes(1_200_000) }));
      writeFileSync(file, buildZip([...specs(), ...heavy]));
      digestWorkerThreshold.bytes = Number.POSITIVE_INFINITY;
      await inspectArtifact(file, { integrityPolicy: 'record-and-continue' });
      const before = threads();
      digestWorkerThreshold.bytes = 0;
      const controller = new AbortController();
      // Cancelled as soon as the workers are seen running.
      const watch = setInterval(() => {
        if (threads() > before) controller.abort();
      }, 1);
      try {
        await expect(
          inspectArtifact(file, { integrityPolicy: 'record-and-continue', signal: controller.signal }),
        ).rejects.toMatchObject({ code: 'cancelled' });
      } finally {
        clearInterval(watch);
      }
      expect(controller.signal.aborted).toBe(true);
      expect(threads()).toBe(before);
    });
  });
  it('ends the workers it started beside the central directory when that directory is refused', async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'bad-directory.zip');
      const bytes = buildZip(specs());
      // The first central-directory record (where the end record says) no longer has its signature.
      bytes.write('XXXX', bytes.readUInt32LE(bytes.length - 22 + 16), 'latin1');
      writeFileSync(file, bytes);
      const before = threads();
      digestWorkerThreshold.bytes = 0;
      await expect(inspectArtifact(file)).rejects.toMatchObject({
        code: 'unsupported_target',
        message: expect.stringMatching(/central directory file header signature/),
      });
      expect(threads()).toBe(before);
    });
  });
  it("digests batches on the walk's own thread exactly as its worker does", async () => {
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'many.zip');
      // Small entries of every kind, many batches of them (a batch holds at most 256).
      const small = specs().filter((spec) => !spec.name.startsWith('big/'));
      const more = Array.from({ length: 900 }, (_, i) => ({ ...small[i % small.length]!, name: `more/${i}` }));
      writeFileSync(file, buildZip([...small, ...more]));
      const { reader, infos } = await readDirectory(file, 10_000);
      digestWorkerThreshold.bytes = 0;
      const tasks = digestWorkerTasks(infos, 1 << 20);
      const byWorkers = await DigestPool.start(file, tasks);
      const helped = await DigestPool.start(file, tasks);
      try {
        let local = 0;
        // This thread takes every batch it may before the workers answer theirs.
        while (helped!.help()) local += 1;
        expect(local).toBeGreaterThan(0);
        for (let index = 0; index < infos.length; index += 1) {
          const [expected, actual] = await Promise.all([byWorkers!.take(index), helped!.take(index)]);
          expect(
            actual === null || actual === undefined ? actual : { ...actual, head: Buffer.from(actual.head) },
          ).toEqual(
            expected === null || expected === undefined ? expected : { ...expected, head: Buffer.from(expected.head) },
          );
          while (helped!.help()) local += 1;
        }
      } finally {
        await byWorkers?.close();
        await helped?.close();
        reader.close();
      }
    });
  });
});
