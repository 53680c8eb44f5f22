import { constants } from 'node:fs';
import { access, open } from 'node:fs/promises';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { ReaError } from '@rea/evidence';

/** ELF `e_machine` of AArch64. */
const EM_AARCH64 = 0xb7;

/** How a program of another architecture runs for LLDB: a user-mode emulator serving gdb-remote. */
export interface Emulation {
  /** The emulator's path, e.g. `/usr/bin/qemu-aarch64`. */
  command: string;
  /** Its arguments: serve gdb-remote on `port`, then the program and its arguments. */
  args: string[];
  /** What LLDB connects to. */
  connect: string;
}

async function onPath(name: string): Promise<string | null> {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter).filter(Boolean)) {
    const path = join(dir, name);
    if (
      await access(path, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return path;
  }
  return null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Null when `executable` runs natively here. An AArch64 ELF on another host runs under `qemu-aarch64`
 * (Debian: qemu-user) serving gdb-remote on a free loopback port: `capability_unavailable` with that
 * remedy when it is missing, `invalid_request` with `attach` (only a native process is attached to).
 */
export async function emulationFor(
  executable: string,
  args: readonly string[],
  attach: boolean,
): Promise<Emulation | null> {
  const handle = await open(executable, 'r');
  const header = Buffer.alloc(20);
  try {
    await handle.read(header, 0, 20, 0);
  } finally {
    await handle.close();
  }
  const littleEndian = header[5] === 1;
  const machine = littleEndian ? header.readUInt16LE(18) : header.readUInt16BE(18);
  if (machine !== EM_AARCH64 || process.arch === 'arm64') return null;
  if (attach) {
    throw new ReaError('invalid_request', "attach needs a program of this host's architecture; this one is AArch64.", {
      remediation: 'Trace it from launch (without attach): REA runs it under qemu-aarch64.',
      details: { reason: 'attach-emulated', path: executable },
    });
  }
  const command = await onPath('qemu-aarch64');
  if (command === null) {
    throw new ReaError('capability_unavailable', `${executable} is AArch64: tracing it here needs qemu-aarch64.`, {
      remediation: 'Install QEMU user-mode emulation (Debian: apt-get install qemu-user).',
      details: { capability: 'native-call-tracing', provider_id: 'lldb', reason: 'emulator-missing' },
    });
  }
  const port = await freePort();
  return { command, args: ['-g', String(port), executable, ...args], connect: `connect://127.0.0.1:${port}` };
}
