// The AArch64 argument mapping (x0-x7, return in x0, return address in lr) on a real AArch64 program:
// compiled at test time with the cross compiler (no libc), run under qemu-aarch64, which serves
// gdb-remote to LLDB.
import { expect, it, jest } from '@jest/globals';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compileFixture, skipUnless } from '@rea/test-helpers';
import type { TraceResult } from '../src/trace/schema.js';
import { failure, observe, run } from './support.js';

jest.setTimeout(300_000);

const program = () =>
  compileFixture({
    source: fileURLToPath(new URL('./fixtures/aarch64.c', import.meta.url)),
    compiler: 'aarch64-linux-gnu-gcc',
    args: ['-O1', '-g', '-static', '-nostdlib', '-ffreestanding'],
    output: 'aarch64-calls',
  });

skipUnless(process.arch === 'x64' ? null : 'the emulated case needs an x86-64 host')(
  'observe_native_calls on an AArch64 program',
  () => {
    it('should read arguments, strings and return values by AAPCS64 under qemu-aarch64', async () => {
      const result = await run<TraceResult>(observe, {
        executable: program(),
        targets: [{ kind: 'function', name: 'traced', arguments: 2, string_arguments: [1] }],
        returns: true,
      });
      expect([result.abi, result.exit_code, result.stopped_by]).toEqual(['aarch64-aapcs64', 6, 'exit']);
      // The emulator is the qemu-aarch64 found on PATH (Debian installs it in /usr/bin; a PATH of links
      // to it names the link).
      expect(realpathSync(result.emulator!)).toBe(realpathSync('/usr/bin/qemu-aarch64'));
      // traced(i, "name") returns i + 1.
      expect(
        result.events.map((e) => [
          (e['args'] as string[])[0],
          (e['strings'] as Record<string, string>)['1'],
          e['return'],
        ]),
      ).toEqual([
        ['0x0', 'name', '0x1'],
        ['0x1', 'name', '0x2'],
        ['0x2', 'name', '0x3'],
      ]);
    });

    it('should refuse to attach to an AArch64 program', async () => {
      const error = await failure(observe, {
        executable: program(),
        attach: {},
        targets: [{ kind: 'function', name: 'traced' }],
      });
      expect([error.code, error.details['reason']]).toEqual(['invalid_request', 'attach-emulated']);
    });
  },
);
