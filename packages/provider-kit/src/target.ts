import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ReaError, fileSystemError, throwIfAborted } from '@rea/evidence';
import type { ActiveTarget } from './context.js';
import { hashSmallFileSync } from './smallFile.js';

const MAGIC: ReadonlyArray<[string, number[]]> = [
  ['elf', [0x7f, 0x45, 0x4c, 0x46]],
  ['pe', [0x4d, 0x5a]],
  ['mach-o', [0xfe, 0xed, 0xfa, 0xce]],
  ['mach-o', [0xfe, 0xed, 0xfa, 0xcf]],
  ['mach-o', [0xce, 0xfa, 0xed, 0xfe]],
  ['mach-o', [0xcf, 0xfa, 0xed, 0xfe]],
  ['mach-o-universal', [0xca, 0xfe, 0xba, 0xbe]],
  ['zip', [0x50, 0x4b, 0x03, 0x04]],
  ['dex', [0x64, 0x65, 0x78, 0x0a]],
  ['wasm', [0x00, 0x61, 0x73, 0x6d]],
];

/** A coarse format from a file's first bytes: enough to name a target, not to analyse it. */
export function sniffTargetFormat(head: Uint8Array): string {
  for (const [format, bytes] of MAGIC) {
    if (bytes.every((byte, index) => head[index] === byte)) return format;
  }
  return 'unknown';
}

/**
 * Reads a target's identity — absolute path, coarse format, SHA-256 (streamed, honouring `signal`),
 * size — as `open_binary` and the CLI's `--target` record it. A missing path is `not_found`; an
 * unreadable one is `target_unavailable`, with `details.path` and `details.reason` (the system error
 * code), except a path the user may not read: `access_denied`. A path that is there but is not a
 * regular file (a folder, FIFO, socket or device such as `/dev/null`) is `unsupported_target`, as
 * `inspect_artifact` and `rea analyze` answer it: `details.path`, `details.format` ("directory" or
 * "special") and `details.reason` "not-a-file". An abort is `cancelled`.
 */
export async function readActiveTarget(path: string, signal: AbortSignal): Promise<ActiveTarget> {
  const absolute = resolve(path);
  throwIfAborted(signal, 'hashing');
  // A small regular file is read and hashed at once (see smallFile.ts). Anything else, and any error,
  // takes the path below, which says what the path is (a socket, a folder) or why it cannot be read.
  let small: ReturnType<typeof hashSmallFileSync> = null;
  try {
    small = hashSmallFileSync(absolute);
  } catch {
    // Reported below.
  }
  if (small !== null) {
    return { path: absolute, format: sniffTargetFormat(small.head), sha256: small.sha256, size: small.statSize };
  }
  let size: number;
  try {
    const info = await stat(absolute);
    if (!info.isFile()) {
      throw new ReaError('unsupported_target', `${absolute} is not a regular file.`, {
        details: { path: absolute, format: info.isDirectory() ? 'directory' : 'special', reason: 'not-a-file' },
        remediation:
          'Pass the path of a regular file (an executable, library or package), not a folder, FIFO or device.',
      });
    }
    size = info.size;
  } catch (error) {
    throw fileSystemError(error, absolute, 'read');
  }
  const head = new Uint8Array(8);
  try {
    const handle = await open(absolute, 'r');
    try {
      await handle.read(head, 0, 8, 0);
    } finally {
      await handle.close();
    }
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(absolute, { signal })) hash.update(chunk as Buffer);
    throwIfAborted(signal, 'hashing');
    return { path: absolute, format: sniffTargetFormat(head), sha256: hash.digest('hex'), size };
  } catch (error) {
    throwIfAborted(signal, 'hashing');
    throw fileSystemError(error, absolute, 'read');
  }
}
