import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import { FIXTURES, openWithCapstone, removeTempDirs, systemBinaries, tempDir } from './support.js';

afterAll(removeTempDirs);

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    expect(isReaError(error)).toBe(true);
    return error as { code: string; details?: Record<string, unknown> };
  }
  throw new Error('expected the open to fail');
}

function write(name: string, bytes: Uint8Array): string {
  const path = join(tempDir(), name);
  writeFileSync(path, bytes);
  return path;
}

skipUnless(toolsMissing('gcc'))('hostile and unsupported inputs', () => {
  const elf = () =>
    readFileSync(
      compileFixture({
        source: join(FIXTURES, 'sample.c'),
        compiler: 'gcc',
        args: ['-O2', '-fno-inline'],
        output: 'sample-x64-nodebug',
      }),
    );

  it('a truncated ELF is unsupported_target, not a crash', async () => {
    const bytes = elf();
    for (const size of [3, 40, 64, 700, Math.floor(bytes.length / 3)]) {
      const error = await failure(openWithCapstone(write(`truncated-${size}`, bytes.subarray(0, size))));
      expect(['unsupported_target']).toContain(error.code);
    }
  });

  it('random bytes are unsupported_target', async () => {
    const error = await failure(openWithCapstone(write('random.bin', randomBytes(64 * 1024))));
    expect(error.code).toBe('unsupported_target');
  });

  it('an architecture the engine does not decode is unsupported_target naming it', async () => {
    const bytes = Buffer.from(elf());
    bytes.writeUInt16LE(243, 18); // e_machine = EM_RISCV
    const error = await failure(openWithCapstone(write('riscv-header', bytes)));
    expect(error.code).toBe('unsupported_target');
  });

  it('a lying section-header offset is a typed error', async () => {
    const bytes = Buffer.from(elf());
    bytes.writeBigUInt64LE(0x7fff_ffffn, 0x28); // e_shoff far past the end
    const error = await failure(openWithCapstone(write('lying-shoff', bytes)));
    expect(error.code).toBe('unsupported_target');
  });

  it('x86-64 code labelled AArch64 opens and decodes without crashing (garbage in, typed results out)', async () => {
    const bytes = Buffer.from(elf());
    bytes.writeUInt16LE(183, 18); // e_machine = EM_AARCH64
    const opened = await openWithCapstone(write('lying-machine', bytes)).catch((error: unknown) => {
      expect(isReaError(error)).toBe(true);
      return null;
    });
    if (opened) {
      const page = await opened.port.procedures({ offset: 0, limit: 10 }, new AbortController().signal);
      expect(page.total).toBeGreaterThanOrEqual(0);
      await opened.session.close(new AbortController().signal);
    }
  });

  it('an unreadable path is target_unavailable', async () => {
    const error = await failure(openWithCapstone(join(tempDir(), 'absent')));
    expect(error.code).toBe('target_unavailable');
  });

  it('a relocatable object is unsupported_target (its targets are left to the linker)', async () => {
    const object = compileFixture({
      source: join(FIXTURES, 'sample.c'),
      compiler: 'gcc',
      args: ['-O1', '-c'],
      output: 'sample-x64.o',
    });
    const error = await failure(openWithCapstone(object));
    expect(error.code).toBe('unsupported_target');
    expect(error.details).toMatchObject({ reason: 'relocatable-object', format: 'elf' });
    if (toolsMissing('clang') !== null) return;
    const machoObject = compileFixture({
      source: join(FIXTURES, 'freestanding.c'),
      compiler: 'clang',
      args: ['-target', 'x86_64-apple-macos11', '-O1', '-c'],
      output: 'freestanding-x64-macho.o',
    });
    const machoError = await failure(openWithCapstone(machoObject));
    expect(machoError.details).toMatchObject({ reason: 'relocatable-object', format: 'macho' });
  });
  it('a universal (fat) Mach-O is unsupported_target naming its slices', async () => {
    if (toolsMissing('clang', 'ld64.lld-14') !== null) return;
    const thin = readFileSync(
      compileFixture({
        source: compileFixture({
          source: join(FIXTURES, 'freestanding.c'),
          compiler: 'clang',
          args: ['-target', 'x86_64-apple-macos11', '-O1', '-c'],
          output: 'fs-x64.o',
        }),
        compiler: 'ld64.lld-14',
        args: ['-arch', 'x86_64', '-platform_version', 'macos', '11.0', '11.0', '-e', '__start'],
        output: 'fs-x64-macho',
      }),
    );
    // FAT_MAGIC header with one x86_64 slice at offset 4096.
    const header = Buffer.alloc(4096);
    header.writeUInt32BE(0xcafebabe, 0);
    header.writeUInt32BE(1, 4);
    header.writeUInt32BE(0x01000007, 8);
    header.writeUInt32BE(3, 12);
    header.writeUInt32BE(4096, 16);
    header.writeUInt32BE(thin.length, 20);
    header.writeUInt32BE(12, 24);
    const error = await failure(openWithCapstone(write('fat-macho', Buffer.concat([header, thin]))));
    expect(error.code).toBe('unsupported_target');
    expect(JSON.stringify(error.details)).toContain('x86_64');
  });
});

describe('deadlines and cancellation', () => {
  it('an aborted signal ends the open with cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(openWithCapstone('/usr/bin/ls', controller.signal));
    expect(error.code).toBe('cancelled');
  });

  it('cancellation during discovery ends the open with cancelled', async () => {
    const controller = new AbortController();
    const pending = openWithCapstone(systemBinaries().at(-1)!, controller.signal);
    setTimeout(() => controller.abort(), 20);
    const error = await failure(pending);
    expect(error.code).toBe('cancelled');
  });

  it('a deadline shorter than the work is provider_timeout', async () => {
    const error = await failure(openWithCapstone(systemBinaries().at(-1)!, new AbortController().signal, 50));
    expect(error.code).toBe('provider_timeout');
    expect(error.details).toMatchObject({ provider_id: 'capstone', deadline_ms: 50 });
  });
});

skipUnless(toolsMissing('gcc', 'objdump'))('transfers and operands outside the address space', () => {
  it('name nothing: the procedure, its calls, flow and references are answered without a failure', async () => {
    const file = compileFixture({
      source: join(FIXTURES, 'outside.c'),
      compiler: 'gcc',
      args: ['-O1'],
      output: 'outside',
    });
    // The fixture holds what it means to: objdump shows the call and jump to wrapped 64-bit targets.
    const listing = execFileSync('objdump', ['-d', '--no-show-raw-insn', file], { encoding: 'utf8' });
    expect(listing).toMatch(/call\s+ffffffff8000[0-9a-f]{4}/);
    expect(listing).toMatch(/jmp\s+ffffffff8000[0-9a-f]{4}/);
    const signal = new AbortController().signal;
    const { session, port } = await openWithCapstone(file);
    try {
      const odd = await port.addressOf('odd', signal);
      expect(odd).not.toBeNull();
      const info = await port.procedure(odd!, signal);
      expect(info).not.toBeNull();
      const callees = await port.callees(odd!, signal);
      // No call names an address outside the image (the wrapped call is not a call to anything).
      const size = statSync(file).size;
      for (const c of callees.calls) expect(Number.parseInt(c.procedure, 16)).toBeLessThan(size * 4);
      const flow = await port.controlFlow(odd!, signal);
      expect(flow.blocks.length).toBeGreaterThan(0);
      const page = await port.instructions(odd!, { offset: 0, limit: 100 }, signal);
      expect(page.items.some((i) => i.mnemonic === 'call' && /^0xffffffff8000/.test(i.operands))).toBe(true);
      for (const i of page.items) await port.references(i.address, signal);
    } finally {
      await session.close(signal);
    }
  });
});
