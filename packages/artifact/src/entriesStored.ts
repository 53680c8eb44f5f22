// A large stored (uncompressed) entry read straight from the file into one buffer of its declared
// size: no stream, no chunk copies. An APK's resource table is stored and often tens of MiB.
import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { throwIfAborted } from '@rea/evidence';
import { malformed } from './errors.js';
import type { ZipEntryInfo } from './engine/zip.js';
import { crcHex } from './hashing.js';
import type { ObservedContradiction } from './integrity.js';

const LOCAL_HEADER = 0x04034b50;
const CHUNK = 8 << 20;

/**
 * The bytes of the stored entry `info` of the ZIP at `path`, whose data must end before
 * `dataLimit` (the central directory), and any CRC-32 contradiction. A damaged local header or data
 * past the limit is `unsupported_target` (malformed).
 */
export async function readStored(
  path: string,
  info: ZipEntryInfo,
  entryPath: string,
  dataLimit: number,
  signal: AbortSignal | undefined,
): Promise<{ bytes: Buffer; contradiction: ObservedContradiction | null }> {
  const handle = await open(path, 'r');
  try {
    const header = Buffer.alloc(30);
    const { bytesRead } = await handle.read(header, 0, 30, info.localHeaderOffset);
    if (bytesRead !== 30 || header.readUInt32LE(0) !== LOCAL_HEADER)
      throw malformed('zip', `entry ${JSON.stringify(entryPath)} has no valid local header`, { path: entryPath });
    const start = info.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    if (start + info.compressedSize > dataLimit)
      throw malformed('zip', `entry ${JSON.stringify(entryPath)} reaches past the central directory`, {
        path: entryPath,
      });
    const bytes = Buffer.allocUnsafe(info.uncompressedSize);
    let done = 0;
    let crc = 0;
    while (done < bytes.length) {
      throwIfAborted(signal, 'reading');
      const want = Math.min(CHUNK, bytes.length - done);
      const read = await handle.read(bytes, done, want, start + done);
      if (read.bytesRead === 0) throw malformed('zip', 'truncated (unexpected end of file)', { path: entryPath });
      crc = crc32(bytes.subarray(done, done + read.bytesRead), crc);
      done += read.bytesRead;
    }
    const observed = crc >>> 0;
    if (observed === info.crc32) return { bytes, contradiction: null };
    return {
      bytes,
      contradiction: {
        path: entryPath,
        algorithm: 'crc32',
        declared: crcHex(info.crc32),
        observed: crcHex(observed),
        observedSha256: null,
        provenance: 'zip-central-directory',
        unpacked: false,
      },
    };
  } finally {
    await handle.close();
  }
}
