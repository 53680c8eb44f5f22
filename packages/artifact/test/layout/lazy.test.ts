import { expect, it } from '@jest/globals';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseBinaryLayout, parseBinaryLayoutFile } from '@rea/artifact';
import type { BinaryLayout } from '@rea/artifact';
import { skipUnless, toolsMissing, withTempDir } from '@rea/test-helpers';
import * as fx from './fixtures.js';

function outcome(parse: () => BinaryLayout): unknown {
  try {
    return plain(parse());
  } catch (error) {
    const { code, details } = error as { code?: unknown; details?: Record<string, unknown> };
    return { code, reason: details?.['reason'], format: details?.['format'] };
  }
}

function plain(layout: BinaryLayout): Omit<BinaryLayout, 'readAt'> {
  const { readAt: _readAt, ...rest } = layout;
  return rest;
}

/** Reading only the needed parts of the file gives exactly what parsing the whole file in memory gives. */
function expectSameAsInMemory(path: string): void {
  const whole = parseBinaryLayout(readFileSync(path));
  const lazy = parseBinaryLayoutFile(path);
  expect(plain(lazy)).toEqual(plain(whole));
  for (const section of whole.sections.filter((s) => s.fileSize > 0 && s.flags.alloc).slice(0, 12)) {
    const length = Math.min(section.size, 1 << 16);
    const expected = whole.readAt(section.address, length);
    const actual = lazy.readAt(section.address, length);
    expect(actual === null ? null : Buffer.from(actual).equals(Buffer.from(expected!))).toBe(
      expected === null ? null : true,
    );
  }
}

const builders = [fx.elfX64Pie, fx.elfI386Exec, fx.elfPpcShared, fx.peX64Exe, fx.peI386Exe, fx.machoX64, fx.machoFat];
skipUnless(
  toolsMissing(
    'gcc',
    'clang',
    'ld.lld',
    'x86_64-w64-mingw32-gcc',
    'lld-link',
    'llvm-dlltool',
    'ld64.lld-14',
    'llvm-lipo-14',
  ),
)('parseBinaryLayoutFile', () => {
  it.each(builders.map((build) => ({ name: build.name, build })))(
    'should equal the in-memory parse for $name',
    ({ build }) => expectSameAsInMemory(build()),
  );

  it.each(['/usr/bin/ls', '/usr/lib/x86_64-linux-gnu/libstdc++.so.6'].filter((p) => existsSync(p)))(
    'should equal the in-memory parse for %s',
    (path) => expectSameAsInMemory(path),
  );

  it('should refuse an empty file as the in-memory parser does', () => {
    expect(() => parseBinaryLayoutFile('/dev/null')).toThrow(expect.objectContaining({ code: 'unsupported_target' }));
  });

  it('should agree with the in-memory parser on mutated binaries, error for error', async () => {
    const corpus = [fx.elfX64Pie, fx.elfPpcShared, fx.peX64Exe, fx.machoFat].map((build) => readFileSync(build()));
    await withTempDir((dir) => {
      const path = join(dir, 'mutated');
      fc.assert(
        fc.property(
          fc.nat({ max: corpus.length - 1 }),
          fc.array(fc.record({ at: fc.nat({ max: 4095 }), value: fc.integer({ min: 0, max: 255 }) }), { maxLength: 8 }),
          fc.option(fc.nat(), { nil: undefined }),
          (file, writes, truncate) => {
            const original = corpus[file]!;
            const bytes = Buffer.from(
              truncate === undefined ? original : original.subarray(0, truncate % original.length),
            );
            for (const { at, value } of writes) if (at < bytes.length) bytes[at] = value;
            writeFileSync(path, bytes);
            expect(outcome(() => parseBinaryLayoutFile(path))).toEqual(outcome(() => parseBinaryLayout(bytes)));
          },
        ),
        { numRuns: 300, seed: 1130 },
      );
    });
  });
});
