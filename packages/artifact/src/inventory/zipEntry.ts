// Reading one ZIP entry for an inventory or an extraction: its bytes checked against the declared
// CRC-32 and size, or a worker's digest of them judged the same way.
import { SMALL_ENTRY_BYTES, classifyStreamError } from '../engine/zip.js';
import type { ZipEntryInfo, ZipReader } from '../engine/zip.js';
import type { DigestResult } from '../engine/digestMessages.js';
import { digestBuffer, digestStream, crcHex } from '../hashing.js';
import type { Digest, DigestOptions } from '../hashing.js';
import { containerFromHead } from '../detect.js';
import type { ObservedContradiction } from '../integrity.js';

/** Where a contradiction was observed. */
export type Base = { path: string; provenance: 'zip-central-directory'; unpacked: false };
/** What reading one entry observed. */
export type EntryRead = { digest: Digest | null; contradiction: ObservedContradiction | null };

function faultContradiction(
  info: ZipEntryInfo,
  base: Base,
  fault: ReturnType<typeof classifyStreamError>,
): ObservedContradiction {
  const observed =
    fault.kind === 'size'
      ? `${fault.exact ? '' : 'at least '}${fault.observed} bytes`
      : `undecodable data (${fault.message})`;
  return {
    ...base,
    algorithm: fault.kind === 'size' ? 'size' : 'crc32',
    declared: fault.kind === 'size' ? `${info.uncompressedSize} bytes` : crcHex(info.crc32),
    observed,
    observedSha256: null,
  };
}

/**
 * The first field in which the local header of an entry contradicts its central-directory record, as a
 * contradiction (`local-header`), or null: its name (byte for byte), its compression method, and,
 * unless the local header defers them to a data descriptor (flag bit 3) or to a zip64 field, its CRC-32
 * and sizes. Tools differ on which of the two they believe: an archive that names or describes an
 * entry one way in its directory and another in front of its data shows different contents to each.
 */
export function localHeaderContradiction(
  reader: ZipReader,
  info: ZipEntryInfo,
  base: Base,
): ObservedContradiction | null {
  const local = reader.localHeader(info);
  // A local header that cannot be read at all is judged where the data is read.
  if (local === null) return null;
  const declaredName = info.rawName ?? info.name;
  const described = (local.flags & 0x8) === 0;
  const sized = (value: number): boolean => described && value !== 0xffffffff;
  const differs: [string, string, string] | null =
    local.name !== declaredName
      ? ['name', JSON.stringify(declaredName), JSON.stringify(local.name)]
      : local.method !== info.compressionMethod
        ? ['compression method', String(info.compressionMethod), String(local.method)]
        : described && local.crc32 !== info.crc32
          ? ['CRC-32', crcHex(info.crc32), crcHex(local.crc32)]
          : sized(local.compressedSize) && local.compressedSize !== info.compressedSize
            ? ['compressed size', `${info.compressedSize} bytes`, `${local.compressedSize} bytes`]
            : sized(local.uncompressedSize) && local.uncompressedSize !== info.uncompressedSize
              ? ['size', `${info.uncompressedSize} bytes`, `${local.uncompressedSize} bytes`]
              : null;
  if (differs === null) return null;
  const [field, declared, observed] = differs;
  return {
    ...base,
    algorithm: 'local-header',
    declared: `${field} ${declared} (central directory)`,
    observed: `${field} ${observed} (local header)`,
    observedSha256: null,
  };
}

/** The digest of an entry judged against its declared size and CRC-32. */
export function checked(info: ZipEntryInfo, base: Base, digest: Digest): EntryRead {
  if (digest.size !== info.uncompressedSize) {
    const observed = `${digest.size} bytes`;
    return {
      digest,
      contradiction: {
        ...base,
        algorithm: 'size',
        declared: `${info.uncompressedSize} bytes`,
        observed,
        observedSha256: digest.sha256,
      },
    };
  }
  if (digest.crc32 !== info.crc32) {
    const observed = crcHex(digest.crc32 ?? 0);
    return {
      digest,
      contradiction: {
        ...base,
        algorithm: 'crc32',
        declared: crcHex(info.crc32),
        observed,
        observedSha256: digest.sha256,
      },
    };
  }
  return { digest, contradiction: null };
}

/** A worker's digest as the reader's own: what it kept is kept only as `collect` asks. */
export function fromWorker(
  info: ZipEntryInfo,
  result: DigestResult,
  collect: { upTo: number; containersOnly: boolean } | undefined,
): Digest {
  const head = Buffer.isBuffer(result.head)
    ? result.head
    : Buffer.from(result.head.buffer, result.head.byteOffset, result.head.byteLength);
  const bytes = result.collected;
  const keep =
    bytes !== null &&
    collect !== undefined &&
    bytes.byteLength <= collect.upTo &&
    (!collect.containersOnly || containerFromHead(head) !== null);
  return {
    sha256: result.sha256,
    size: info.uncompressedSize,
    crc32: result.crc32,
    blocks: null,
    collected: keep ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null,
    head,
  };
}

/** Reads one ZIP entry, checking CRC-32 and size; returns the digest and any contradiction observed. */
export async function readZipEntry(
  reader: ZipReader,
  info: ZipEntryInfo,
  path: string,
  options: {
    signal?: AbortSignal | undefined;
    /** Keep the bytes (up to `upTo`), of containers only or of anything. */
    collect?: { upTo: number; containersOnly: boolean };
    onChunk?: (chunk: Buffer) => Promise<void> | void;
    /** Hash fixed-size blocks too (an ASAR companion checked against its header). */
    blockSize?: number;
    /** SHA-256 of the bytes (default true); false leaves the digest's `sha256` null. */
    sha256?: boolean;
  },
): Promise<EntryRead> {
  const base: Base = { path, provenance: 'zip-central-directory', unpacked: false };
  const read = await readZipEntryData(reader, info, base, options);
  if (read.contradiction !== null) return read;
  const local = localHeaderContradiction(reader, info, base);
  return local === null
    ? read
    : { digest: read.digest, contradiction: { ...local, observedSha256: read.digest?.sha256 ?? null } };
}

/** {@link readZipEntry} without the local header's check. */
async function readZipEntryData(
  reader: ZipReader,
  info: ZipEntryInfo,
  base: Base,
  options: Parameters<typeof readZipEntry>[3],
): Promise<EntryRead> {
  // A failure of the consumer (a budget, a full disk) is its own error, not a fault of the entry.
  let sinkFailure: { error: unknown } | null = null;
  const onChunk = options.onChunk;
  const sink = onChunk
    ? async (chunk: Buffer): Promise<void> => {
        try {
          await onChunk(chunk);
        } catch (error) {
          sinkFailure = { error };
          throw error;
        }
      }
    : undefined;
  const digestOptions: DigestOptions = {
    crc32: true,
    ...(options.sha256 === false ? { sha256: false } : {}),
    signal: options.signal,
    ...(options.blockSize !== undefined ? { blockSize: options.blockSize } : {}),
    ...(options.collect ? { collectUpTo: options.collect.upTo } : {}),
    ...(options.collect?.containersOnly ? { collectWhen: (head: Buffer) => containerFromHead(head) !== null } : {}),
    ...(sink ? { onChunk: sink } : {}),
  };
  if (info.compressedSize <= SMALL_ENTRY_BYTES && info.uncompressedSize <= SMALL_ENTRY_BYTES) {
    // Small entries: one cached read and one inflate call instead of a stream pipeline.
    // Without a consumer of its chunks, the entry is hashed before the next read, so its bytes may be
    // inflated into a reused buffer; what is kept of them is copied out.
    const transient = sink === undefined;
    const small = await reader.readSmall(info, transient);
    if ('bytes' in small) {
      const digest = await digestBuffer(small.bytes, digestOptions);
      if (transient && digest.collected !== null) digest.collected = Buffer.from(digest.collected);
      return checked(info, base, digest);
    }
    const fault =
      small.fault === 'size'
        ? { kind: 'size' as const, observed: small.observed, exact: small.exact }
        : { kind: 'other' as const, message: small.message };
    return { digest: null, contradiction: faultContradiction(info, base, fault) };
  }
  // A local header that cannot be read is structural (thrown); only the data stream yields contradictions.
  const stream = await reader.open(info);
  try {
    return checked(info, base, await digestStream(stream, digestOptions));
  } catch (error) {
    if (sinkFailure !== null) throw (sinkFailure as { error: unknown }).error;
    if ((error as { code?: unknown }).code === 'cancelled' || options.signal?.aborted) throw error;
    return { digest: null, contradiction: faultContradiction(info, base, classifyStreamError(error)) };
  }
}
