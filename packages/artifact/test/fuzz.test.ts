import { describe, expect, it } from '@jest/globals';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import * as asar from '@electron/asar';
import { isReaError } from '@rea/evidence';
import { extractArtifact, inspectArtifact } from '@rea/artifact';
import { withTempDir } from '@rea/test-helpers';
import { run } from './helpers/exec.js';
import { buildAsar } from './helpers/asarWriter.js';
import { buildZip } from './helpers/zipWriter.js';

// A hang detector, not a performance assertion: a parser that loops on hostile bytes never settles.
const HANG_MS = 15_000;

function settle(promise: Promise<unknown>): Promise<{ ok: true } | { ok: false; error: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${HANG_MS} ms`)), HANG_MS);
  });
  return Promise.race([promise, hang])
    .then(
      () => ({ ok: true as const }),
      (error: unknown) => ({ ok: false as const, error }),
    )
    .finally(() => clearTimeout(timer));
}

/** Byte-level mutations of a real fixture: flips, 32-bit overwrites, truncation, splices. */
const mutation = (size: number) =>
  fc.oneof(
    fc
      .array(fc.record({ at: fc.nat(size - 1), value: fc.integer({ min: 0, max: 255 }) }), {
        minLength: 1,
        maxLength: 8,
      })
      .map((flips) => ({ kind: 'flip' as const, flips })),
    fc
      .record({
        at: fc.nat(Math.max(0, size - 4)),
        value: fc.oneof(fc.constantFrom(0, 0xffffffff, 0x7fffffff, 0x80000000), fc.nat()),
      })
      .map((w) => ({ kind: 'u32' as const, ...w })),
    fc.nat(size - 1).map((at) => ({ kind: 'truncate' as const, at })),
    fc
      .record({ at: fc.nat(size - 1), bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }) })
      .map((s) => ({ kind: 'splice' as const, ...s })),
  );

type Mutation = ReturnType<typeof mutation> extends fc.Arbitrary<infer M> ? M : never;

function apply(original: Buffer, m: Mutation): Buffer {
  const bytes = Buffer.from(original);
  switch (m.kind) {
    case 'flip':
      for (const { at, value } of m.flips) bytes[at] = value;
      return bytes;
    case 'u32':
      bytes.writeUInt32LE(m.value >>> 0, m.at);
      return bytes;
    case 'truncate':
      return bytes.subarray(0, m.at);
    case 'splice':
      return Buffer.concat([bytes.subarray(0, m.at), Buffer.from(m.bytes), bytes.subarray(m.at)]);
  }
}

async function exercise(tmp: string, name: string, bytes: Buffer): Promise<void> {
  const file = join(tmp, name);
  writeFileSync(file, bytes);
  const parent = join(tmp, 'out');
  mkdirSync(parent, { recursive: true });
  for (const attempt of [
    () => inspectArtifact(file, { budgets: { max_entries: 2000, max_bytes: 64 << 20, max_nested_bytes: 8 << 20 } }),
    () => inspectArtifact(file, { integrityPolicy: 'record-and-continue', budgets: { max_entries: 2000 } }),
    () => extractArtifact(file, { parentDirectory: parent, integrityPolicy: 'record-and-continue' }),
  ]) {
    const outcome = await settle(attempt());
    if (!outcome.ok) expect(isReaError(outcome.error) ? 'typed' : (outcome.error as Error).stack).toBe('typed');
  }
  // Nothing beside the archive and the extraction parent; inside it, only REA's own fresh directories.
  expect(readdirSync(tmp).sort()).toEqual([name, 'out'].sort());
  expect(readdirSync(parent).every((entry) => entry.startsWith('rea-extract-'))).toBe(true);
  rmSync(parent, { recursive: true, force: true });
}

describe('mutation fuzzing of the container parsers', () => {
  it('should end every mutated ZIP in a result or a ReaError, writing nowhere else', async () => {
    await withTempDir(async (tmp) => {
      const tree = join(tmp, 'tree');
      mkdirSync(join(tree, 'd'), { recursive: true });
      writeFileSync(join(tree, 'a.txt'), 'alpha '.repeat(200));
      writeFileSync(join(tree, 'd', 'b.bin'), Buffer.alloc(3000, 3));
      run('zip', ['-q', '-r', join(tmp, 'inner.zip'), '.'], tree);
      writeFileSync(join(tree, 'inner.zip'), readFileSync(join(tmp, 'inner.zip')));
      run('zip', ['-q', '-r', join(tmp, 'seed.zip'), '.'], tree);
      const seed = readFileSync(join(tmp, 'seed.zip'));
      const work = join(tmp, 'work');
      mkdirSync(work);
      await fc.assert(
        fc.asyncProperty(mutation(seed.length), async (m) => {
          await exercise(work, 'm.zip', apply(seed, m as Mutation));
        }),
        { numRuns: 120, seed: 20261130 },
      );
    });
  }, 600_000);

  it('should end every mutated ASAR in a result or a ReaError, writing nowhere else', async () => {
    await withTempDir(async (tmp) => {
      const src = join(tmp, 'app');
      mkdirSync(join(src, 'lib'), { recursive: true });
      writeFileSync(join(src, 'package.json'), '{"name":"x"}');
      writeFileSync(join(src, 'lib', 'a.js'), 'module.exports = 1;\n'.repeat(50));
      writeFileSync(join(src, 'lib', 'b.js'), 'module.exports = 2;\n');
      await asar.createPackage(src, join(tmp, 'seed.asar'));
      const seed = readFileSync(join(tmp, 'seed.asar'));
      const work = join(tmp, 'work');
      mkdirSync(work);
      await fc.assert(
        fc.asyncProperty(mutation(seed.length), async (m) => {
          await exercise(work, 'm.asar', apply(seed, m as Mutation));
        }),
        { numRuns: 120, seed: 20261130 },
      );
    });
  }, 600_000);

  it('should end every generated ASAR header in a result or a ReaError', async () => {
    await withTempDir(async (tmp) => {
      const value = fc.oneof(
        fc.integer({ min: -5, max: 70 }),
        fc.constantFrom(2 ** 53, -1, 1.5, '0', '16', '-1', '99999999999999999', 'x', null, true),
      );
      const leaf = fc.record(
        {
          size: value,
          offset: value,
          unpacked: fc.boolean(),
          link: fc.constantFrom('a', '../x', '/etc', 'd/../../y'),
          integrity: fc.anything({ maxDepth: 2 }),
        },
        { requiredKeys: [] },
      );
      const name = fc.constantFrom('a', 'b', '..', '.', '', 'a/b', 'c\\d', 'e\u0000f', '__proto__', 'constructor');
      const tree = fc.letrec((tie) => ({
        node: fc.oneof({ depthSize: 'small' }, leaf, fc.record({ files: tie('dir') })),
        dir: fc.dictionary(name, tie('node'), { maxKeys: 4 }),
      })).dir;
      const work = join(tmp, 'work');
      mkdirSync(work);
      await fc.assert(
        fc.asyncProperty(tree, fc.uint8Array({ maxLength: 80 }), async (files, data) => {
          await exercise(work, 'g.asar', buildAsar({ files }, Buffer.from(data)));
        }),
        { numRuns: 150, seed: 20261130 },
      );
    });
  }, 600_000);
});

describe('fuzzing extraction with hostile entry names and sizes', () => {
  /** Every regular file under `dir`, as logical paths. */
  function filesUnder(dir: string, prefix = ''): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const logical = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      return entry.isDirectory() ? filesUnder(join(dir, entry.name), logical) : [logical];
    });
  }

  it('should extract every generated ZIP completely and exactly, or refuse it typed and keep nothing', async () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'a',
        'A',
        'b',
        'B',
        'caf\u00e9',
        'cafe\u0301',
        'README',
        'readme',
        '..',
        '.',
        'x\u001b[2J',
        'n\u0000',
      ),
      fc.integer({ min: 1, max: 300 }).map((n) => 'n'.repeat(n)),
    );
    const name = fc.oneof(
      fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/')),
      fc.integer({ min: 1000, max: 2200 }).map((depth) => `${'d/'.repeat(depth)}f`),
    );
    const entry = fc.record({
      name,
      size: fc.constantFrom(0, 1, 100, 5000, 2 << 20),
      method: fc.constantFrom(0 as const, 8 as const),
    });
    const budgets = fc.record(
      {
        max_bytes: fc.constantFrom(0, 4096, 1 << 20),
        max_entries: fc.constantFrom(1, 3),
        max_ratio: fc.constantFrom(1, 50),
      },
      { requiredKeys: [] },
    );
    await withTempDir(async (tmp) => {
      const file = join(tmp, 'g.zip');
      const parent = join(tmp, 'out');
      await fc.assert(
        fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 5 }), budgets, async (entries, limits) => {
          writeFileSync(
            file,
            buildZip(entries.map((e) => ({ name: e.name, data: Buffer.alloc(e.size), method: e.method }))),
          );
          mkdirSync(parent, { recursive: true });
          try {
            let extracted: Awaited<ReturnType<typeof extractArtifact>> | null = null;
            const outcome = await settle(
              extractArtifact(file, { parentDirectory: parent, budgets: limits }).then((done) => {
                extracted = done;
              }),
            );
            if (!outcome.ok) {
              expect(isReaError(outcome.error) ? 'typed' : (outcome.error as Error).stack).toBe('typed');
              expect((outcome.error as { code: string }).code).not.toBe('internal');
              expect(readdirSync(parent)).toEqual([]);
              return;
            }
            // Complete means complete: what the result lists is exactly what is on disk, size for size.
            const { outputDirectory, result } = extracted!;
            expect(readdirSync(parent)).toHaveLength(1);
            const written = filesUnder(outputDirectory).sort();
            expect(result.files.map((f) => f.path).sort()).toEqual(written);
            for (const f of result.files) expect(statSync(join(outputDirectory, f.path)).size).toBe(f.size);
            const folded = new Set(written.map((p) => p.normalize('NFC').toLowerCase()));
            expect(folded.size).toBe(written.length);
          } finally {
            rmSync(parent, { recursive: true, force: true });
          }
        }),
        { numRuns: 80, seed: 20261201 },
      );
    });
  }, 600_000);
});
