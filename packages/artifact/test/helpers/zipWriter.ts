// A small ZIP writer for the tests: it writes raw bytes field by field so that a test can make any
// field lie (CRC, sizes, offsets, names, modes, flags) independently of the rest.
import { crc32, deflateRawSync } from 'node:zlib';

/** One entry to write; every override makes the corresponding header field lie. */
export interface ZipSpec {
  name: string;
  data?: Buffer;
  method?: 0 | 8;
  /** Unix mode including the file type bits (e.g. 0o120777 for a symlink); made on Unix when set. */
  mode?: number;
  crc?: number;
  declaredSize?: number;
  declaredCompressedSize?: number;
  encrypted?: boolean;
  dataDescriptor?: boolean;
  /** Write sizes and offset through the zip64 extra field. */
  zip64?: boolean;
  /** Central-directory local-header offset override (overlapping entries). */
  localOffset?: number;
}

/** Whole-archive options. */
export interface ZipOptions {
  prefix?: Buffer;
  /** Write zip64 end records even when not needed. */
  zip64End?: boolean;
  /** Declared entry count override in the end record. */
  declaredCount?: number;
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}
function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}
function u64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
}

/** Builds a ZIP archive from `specs`. */
export function buildZip(specs: readonly ZipSpec[], options: ZipOptions = {}): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = options.prefix?.length ?? 0;
  if (options.prefix) parts.push(options.prefix);
  for (const spec of specs) {
    const data = spec.data ?? Buffer.alloc(0);
    const method = spec.method ?? 8;
    const body = method === 8 ? deflateRawSync(data) : data;
    const crc = spec.crc ?? crc32(data);
    const size = spec.declaredSize ?? data.length;
    const csize = spec.declaredCompressedSize ?? body.length;
    const name = Buffer.from(spec.name, 'utf8');
    let flags = 0x800;
    if (spec.encrypted) flags |= 1;
    if (spec.dataDescriptor) flags |= 8;
    const z64 = spec.zip64 === true;
    const localExtra = z64 ? Buffer.concat([u16(1), u16(16), u64(size), u64(csize)]) : Buffer.alloc(0);
    const local = Buffer.concat([
      u32(0x04034b50),
      u16(z64 ? 45 : 20),
      u16(flags),
      u16(method),
      u16(0),
      u16(0x21),
      u32(spec.dataDescriptor ? 0 : crc),
      u32(z64 ? 0xffffffff : spec.dataDescriptor ? 0 : csize),
      u32(z64 ? 0xffffffff : spec.dataDescriptor ? 0 : size),
      u16(name.length),
      u16(localExtra.length),
      name,
      localExtra,
    ]);
    const descriptor = spec.dataDescriptor
      ? Buffer.concat([u32(0x08074b50), u32(crc), u32(csize), u32(size)])
      : Buffer.alloc(0);
    const localOffset = spec.localOffset ?? offset;
    parts.push(local, body, descriptor);
    offset += local.length + body.length + descriptor.length;
    const cdExtra = z64 ? Buffer.concat([u16(1), u16(24), u64(size), u64(csize), u64(localOffset)]) : Buffer.alloc(0);
    const unix = spec.mode !== undefined;
    central.push(
      Buffer.concat([
        u32(0x02014b50),
        u16(unix ? 0x031e : 0x0014),
        u16(z64 ? 45 : 20),
        u16(flags),
        u16(method),
        u16(0),
        u16(0x21),
        u32(crc),
        u32(z64 ? 0xffffffff : csize),
        u32(z64 ? 0xffffffff : size),
        u16(name.length),
        u16(cdExtra.length),
        u16(0),
        u16(0),
        u16(0),
        u32(unix ? (spec.mode! << 16) >>> 0 : spec.name.endsWith('/') ? 0x10 : 0),
        u32(z64 ? 0xffffffff : localOffset),
        name,
        cdExtra,
      ]),
    );
  }
  const cd = Buffer.concat(central);
  const count = options.declaredCount ?? specs.length;
  const tail: Buffer[] = [cd];
  const cdOffset = offset;
  if (options.zip64End || count > 0xffff) {
    const eocd64Offset = cdOffset + cd.length;
    tail.push(
      Buffer.concat([
        u32(0x06064b50),
        u64(44),
        u16(45),
        u16(45),
        u32(0),
        u32(0),
        u64(count),
        u64(count),
        u64(cd.length),
        u64(cdOffset),
      ]),
      Buffer.concat([u32(0x07064b50), u32(0), u64(eocd64Offset), u32(1)]),
    );
  }
  const big = options.zip64End || count > 0xffff;
  tail.push(
    Buffer.concat([
      u32(0x06054b50),
      u16(0),
      u16(0),
      u16(big ? 0xffff : count),
      u16(big ? 0xffff : count),
      u32(big ? 0xffffffff : cd.length),
      u32(big ? 0xffffffff : cdOffset),
      u16(0),
    ]),
  );
  return Buffer.concat([...parts, ...tail]);
}

/**
 * A ZIP of `count` empty stored entries named by their index in base 36, written straight into one
 * buffer (a million entries is about 90 MB). Uses zip64 end records past 65535 entries.
 */
export function tinyEntriesZip(count: number): Buffer {
  const nameOf = (i: number): Buffer => Buffer.from(i.toString(36).padStart(4, '0'));
  let nameBytes = 0;
  for (let i = 0; i < count; i += 1) nameBytes += Math.max(4, i.toString(36).length);
  const size = count * (30 + 46) + nameBytes * 2 + 56 + 20 + 22;
  const out = Buffer.alloc(size);
  const offsets = new Array<number>(count);
  let at = 0;
  for (let i = 0; i < count; i += 1) {
    offsets[i] = at;
    const name = nameOf(i);
    out.writeUInt32LE(0x04034b50, at);
    out.writeUInt16LE(20, at + 4);
    out.writeUInt16LE(name.length, at + 26);
    name.copy(out, at + 30);
    at += 30 + name.length;
  }
  const cdOffset = at;
  for (let i = 0; i < count; i += 1) {
    const name = nameOf(i);
    out.writeUInt32LE(0x02014b50, at);
    out.writeUInt16LE(20, at + 4);
    out.writeUInt16LE(20, at + 6);
    out.writeUInt16LE(name.length, at + 28);
    out.writeUInt32LE(offsets[i]!, at + 42);
    name.copy(out, at + 46);
    at += 46 + name.length;
  }
  const cdSize = at - cdOffset;
  const eocd64 = at;
  out.writeUInt32LE(0x06064b50, at);
  out.writeBigUInt64LE(44n, at + 4);
  out.writeUInt16LE(45, at + 12);
  out.writeUInt16LE(45, at + 14);
  out.writeBigUInt64LE(BigInt(count), at + 24);
  out.writeBigUInt64LE(BigInt(count), at + 32);
  out.writeBigUInt64LE(BigInt(cdSize), at + 40);
  out.writeBigUInt64LE(BigInt(cdOffset), at + 48);
  at += 56;
  out.writeUInt32LE(0x07064b50, at);
  out.writeBigUInt64LE(BigInt(eocd64), at + 8);
  out.writeUInt32LE(1, at + 16);
  at += 20;
  out.writeUInt32LE(0x06054b50, at);
  out.writeUInt16LE(0xffff, at + 8);
  out.writeUInt16LE(0xffff, at + 10);
  out.writeUInt32LE(0xffffffff, at + 12);
  out.writeUInt32LE(0xffffffff, at + 16);
  at += 22;
  return out.subarray(0, at);
}
