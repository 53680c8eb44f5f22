import { Bytes, malformed } from '../bytes.js';
import { decodeMutf8 } from './mutf8.js';

/** The NO_INDEX value of DEX index fields. */
export const NO_INDEX = 0xffffffff;
/** DEX format versions this reader accepts. */
export const DEX_VERSIONS: readonly string[] = ['035', '036', '037', '038', '039', '040', '041'];
/** Sections of a version 041 container read at most. */
export const MAX_DEX_SECTIONS = 256;

/** The end of the version 041 container whose section header is at `h`: its size, bounded by the data. */
function containerEnd(b: Bytes, h: number): number {
  const headerSize = b.u32(h + 36, 'header size');
  if (headerSize < 0x78) throw malformed('DEX', 'a version 041 header is shorter than 0x78 bytes');
  const size = b.u32(h + 0x70, 'container size');
  if (size > b.length) throw truncated(size, b.length);
  return size;
}

/** A DEX whose header promises more bytes than there are: what lies past the end would read as garbage. */
function truncated(declared: number, held: number) {
  return malformed('DEX', `truncated: its header gives ${declared} bytes, and only ${held} are there`, {
    declared,
    held,
  });
}

/** The DEX files (versions 035–040) whose checksum was found to match, not to be checked twice. */
const checksummed = new WeakSet<Buffer>();

/** Adler-32 of `buffer[start, end)`, as a DEX header's checksum is computed. */
function adler32(buffer: Buffer, start: number, end: number): number {
  let a = 1;
  let sum = 0;
  // 3800 bytes at most between reductions keep both sums exact in a double, and fast in small integers.
  for (let i = start; i < end;) {
    const stop = Math.min(end, i + 3800);
    for (; i + 4 <= stop; i += 4) {
      a += buffer[i]!;
      sum += a;
      a += buffer[i + 1]!;
      sum += a;
      a += buffer[i + 2]!;
      sum += a;
      a += buffer[i + 3]!;
      sum += a;
    }
    for (; i < stop; i += 1) {
      a += buffer[i]!;
      sum += a;
    }
    a %= 65521;
    sum %= 65521;
  }
  return ((sum << 16) | a) >>> 0;
}

/** Longest string decoded (in UTF-16 units); longer ones are cut. */
export const MAX_DEX_STRING = 65_536;

/** A method prototype: return type and parameter types, as descriptors. */
export interface DexProto {
  shorty: string;
  returnType: string;
  parameters: string[];
}

/** A method reference (method_id_item). */
export interface DexMethodRef {
  index: number;
  className: string;
  name: string;
  proto: DexProto;
}

/** A field reference (field_id_item). */
export interface DexFieldRef {
  index: number;
  className: string;
  type: string;
  name: string;
}

/** A class definition (class_def_item), its indexes resolved lazily. */
export interface DexClassDef {
  index: number;
  classIdx: number;
  accessFlags: number;
  superclassIdx: number;
  interfacesOff: number;
  sourceFileIdx: number;
  annotationsOff: number;
  classDataOff: number;
}

/** A method or field declared by a class. */
export interface DexMember {
  index: number;
  accessFlags: number;
  /** code_item offset of a method, 0 when it has no code (abstract or native) and for fields. */
  codeOff: number;
}

/** The fields and methods a class declares. */
export interface DexClassData {
  staticFields: DexMember[];
  instanceFields: DexMember[];
  directMethods: DexMember[];
  virtualMethods: DexMember[];
}

/** A try block of a method: the instructions it covers and where its exceptions go. */
export interface DexTry {
  /** First code unit covered (16-bit units from the start of the code). */
  start: number;
  /** Code unit after the last one covered. */
  end: number;
  /** In order: the exception type caught (null: any, a catch-all) and the handler's offset. */
  catches: { type: string | null; handler: number }[];
}

/** A code_item header and where its instructions are. */
export interface DexCode {
  registers: number;
  ins: number;
  outs: number;
  tries: number;
  /** Byte offset of insns in the file. */
  insnsOff: number;
  /** Length of insns in 16-bit code units. */
  insnsSize: number;
}

interface Table {
  size: number;
  off: number;
}

/**
 * A DEX file (versions 035–041), read lazily: the header and the id tables are checked against the file
 * size when it is opened (`malformed` otherwise); each item is decoded when asked for. An index out of
 * range does not throw from the resolving accessors: it reads as a placeholder (`<bad type 0x…>`) and is
 * counted in {@link DexFile.faults}.
 */
export class DexFile {
  readonly bytes: Bytes;
  readonly version: string;
  readonly strings: Table;
  readonly types: Table;
  readonly protos: Table;
  readonly fields: Table;
  readonly methods: Table;
  readonly classDefs: Table;
  readonly checksum: number;
  /**
   * Bytes after this DEX's own `file_size` (after the whole container for version 041, whose further
   * sections {@link DexFile.sections} lists). 0 for a single DEX.
   */
  readonly trailingBytes: number;
  /** Where this section's header is (0 but for the later sections of a version 041 container). */
  readonly headerOffset: number;
  /** This DEX's (or section's) size as its header gives it. */
  readonly fileSize: number;
  faults = 0;
  private readonly stringCache: (string | undefined)[] = [];
  private readonly protoCache: (DexProto | undefined)[] = [];
  private sections: Map<number, Table> | null = null;

  /**
   * Opens the DEX section whose header is at `headerOffset` of `buffer` (0 for a plain DEX file; see
   * {@link DexFile.sections} for the sections of a version 041 container, whose offsets are all
   * relative to the start of the container).
   */
  constructor(buffer: Buffer, headerOffset = 0) {
    const b = new Bytes(buffer, 'DEX');
    this.bytes = b;
    this.headerOffset = headerOffset;
    const h = headerOffset;
    const magic = b.slice(h, 8, 'magic');
    if (magic.toString('latin1', 0, 4) !== 'dex\n' || magic[7] !== 0) throw malformed('DEX', 'bad magic');
    this.version = magic.toString('latin1', 4, 7);
    if (!DEX_VERSIONS.includes(this.version)) {
      throw malformed('DEX', `unsupported version ${JSON.stringify(this.version)}`, { version: this.version });
    }
    if (b.u32(h + 40, 'endian tag') !== 0x12345678) throw malformed('DEX', 'byte order is not little-endian');
    this.checksum = b.u32(h + 8);
    const fileSize = b.u32(h + 32, 'file size');
    if (h + fileSize > buffer.length) throw truncated(fileSize, buffer.length - h);
    this.fileSize = fileSize;
    const end = this.version >= '041' ? containerEnd(b, h) : fileSize;
    this.trailingBytes = end < buffer.length ? buffer.length - end : 0;
    const table = (at: number, item: number, what: string): Table => {
      const size = b.u32(h + at, what);
      const off = b.u32(h + at + 4, what);
      if (size > 0) b.need(off, size * item, what);
      return { size, off };
    };
    this.strings = table(56, 4, 'string_ids');
    this.types = table(64, 4, 'type_ids');
    this.protos = table(72, 12, 'proto_ids');
    this.fields = table(80, 8, 'field_ids');
    this.methods = table(88, 8, 'method_ids');
    this.classDefs = table(96, 32, 'class_defs');
  }

  /**
   * The header offsets of the DEX sections in `buffer`: `[0]` for versions 035–040; for a version 041
   * container, every section in turn (each section's `file_size` leads to the next header) up to the
   * container size. A section size of 0, or more than {@link MAX_DEX_SECTIONS} sections, is `malformed`.
   */
  static sections(buffer: Buffer): number[] {
    const b = new Bytes(buffer, 'DEX');
    const version = b.slice(0, 8, 'magic').toString('latin1', 4, 7);
    if (version < '041' || !DEX_VERSIONS.includes(version)) return [0];
    const end = containerEnd(b, 0);
    const out: number[] = [];
    for (let at = 0; at < end;) {
      if (out.length >= MAX_DEX_SECTIONS) throw malformed('DEX', `more than ${MAX_DEX_SECTIONS} sections`);
      out.push(at);
      const size = b.u32(at + 32, 'file size');
      if (size < 0x70) throw malformed('DEX', 'a container section is smaller than its header', { offset: at });
      at += size;
    }
    return out;
  }

  /**
   * Checks the header's Adler-32 checksum against the bytes it covers (all of the DEX after the
   * checksum itself, as dexdump checks it); `malformed` when they differ, since the file is damaged.
   * Versions 035–040 only (a version 041 container's sections are left unchecked).
   */
  verifyChecksum(): void {
    if (this.version >= '041' || checksummed.has(this.bytes.buffer)) return;
    const h = this.headerOffset;
    const observed = adler32(this.bytes.buffer, h + 12, h + this.fileSize);
    if (observed !== this.checksum) {
      const hex = (n: number) => n.toString(16).padStart(8, '0');
      throw malformed('DEX', `damaged: its checksum is ${hex(observed)}, and its header gives ${hex(this.checksum)}`, {
        declared: hex(this.checksum),
        observed: hex(observed),
      });
    }
    checksummed.add(this.bytes.buffer);
  }

  private bad(what: string, index: number): string {
    this.faults++;
    return `<bad ${what} 0x${index.toString(16)}>`;
  }

  /** String `index`, or a placeholder when out of range. */
  string(index: number): string {
    if (index >= this.strings.size) return this.bad('string', index);
    const cached = this.stringCache[index];
    if (cached !== undefined) return cached;
    let text: string;
    try {
      const off = this.bytes.buffer.readUInt32LE(this.strings.off + index * 4);
      const [units, start] = this.bytes.uleb128(off, 'string length');
      this.bytes.need(start, 0, 'string data');
      const end = Math.min(this.bytes.length, start + Math.min(units, MAX_DEX_STRING) * 3 + 1);
      text = decodeMutf8(this.bytes.buffer, start, end, Math.min(units, MAX_DEX_STRING));
    } catch {
      return this.bad('string', index);
    }
    this.stringCache[index] = text;
    return text;
  }

  /** Type descriptor `index` (`Ljava/lang/Object;`, `I`, `[B`), or a placeholder. */
  type(index: number): string {
    if (index >= this.types.size) return this.bad('type', index);
    return this.string(this.bytes.buffer.readUInt32LE(this.types.off + index * 4));
  }

  /** The type list at `off` (interfaces, parameters); empty for 0. */
  typeList(off: number): string[] {
    if (off === 0) return [];
    try {
      const size = this.bytes.u32(off, 'type list');
      this.bytes.need(off + 4, size * 2, 'type list');
      return Array.from({ length: size }, (_, i) => this.type(this.bytes.u16(off + 4 + i * 2)));
    } catch {
      return [this.bad('type list', off)];
    }
  }

  /** Prototype `index`. */
  proto(index: number): DexProto {
    if (index >= this.protos.size) return { shorty: '', returnType: this.bad('proto', index), parameters: [] };
    const cached = this.protoCache[index];
    if (cached !== undefined) return cached;
    const at = this.protos.off + index * 12;
    const b = this.bytes.buffer;
    const proto = {
      shorty: this.string(b.readUInt32LE(at)),
      returnType: this.type(b.readUInt32LE(at + 4)),
      parameters: this.typeList(b.readUInt32LE(at + 8)),
    };
    this.protoCache[index] = proto;
    return proto;
  }

  /** Field reference `index`. */
  field(index: number): DexFieldRef {
    if (index >= this.fields.size) return { index, className: this.bad('field', index), type: '', name: '' };
    const at = this.fields.off + index * 8;
    const b = this.bytes.buffer;
    return {
      index,
      className: this.type(b.readUInt16LE(at)),
      type: this.type(b.readUInt16LE(at + 2)),
      name: this.string(b.readUInt32LE(at + 4)),
    };
  }

  /** Class descriptor of method reference `index`, without decoding its prototype. */
  methodClass(index: number): string {
    if (index >= this.methods.size) return this.bad('method', index);
    return this.type(this.bytes.buffer.readUInt16LE(this.methods.off + index * 8));
  }

  /** Method reference `index`. */
  method(index: number): DexMethodRef {
    if (index >= this.methods.size) {
      return {
        index,
        className: this.bad('method', index),
        name: '',
        proto: { shorty: '', returnType: '', parameters: [] },
      };
    }
    const at = this.methods.off + index * 8;
    const b = this.bytes.buffer;
    return {
      index,
      className: this.type(b.readUInt16LE(at)),
      proto: this.proto(b.readUInt16LE(at + 2)),
      name: this.string(b.readUInt32LE(at + 4)),
    };
  }

  /**
   * The offset of item `index` (of `itemSize` bytes) of the map_list section of `type` (0x0007
   * call_site_ids, 0x0008 method_handles, …), or null when the file has no such section or fewer items.
   * The section is checked against the file size (`malformed` otherwise).
   */
  section(type: number, itemSize: number, index: number): number | null {
    if (this.sections === null) {
      const b = this.bytes;
      const found = new Map<number, Table>();
      const mapOff = b.u32(this.headerOffset + 52, 'map_off');
      if (mapOff !== 0) {
        const count = b.u32(mapOff, 'map_list');
        b.need(mapOff + 4, count * 12, 'map_list');
        for (let i = 0; i < count; i++) {
          const at = mapOff + 4 + i * 12;
          found.set(b.u16(at), { size: b.u32(at + 4), off: b.u32(at + 8) });
        }
      }
      this.sections = found;
    }
    const table = this.sections.get(type);
    if (table === undefined || index >= table.size) return null;
    this.bytes.need(table.off, table.size * itemSize, 'map_list section');
    return table.off + index * itemSize;
  }

  /** Class definition `index` (within {@link DexFile.classDefs}; checked when the file was opened). */
  classDef(index: number): DexClassDef {
    if (index < 0 || index >= this.classDefs.size)
      throw malformed('DEX', 'class definition index out of range', { index });
    const at = this.classDefs.off + index * 32;
    const b = this.bytes.buffer;
    const u = (k: number) => b.readUInt32LE(at + k * 4);
    return {
      index,
      classIdx: u(0),
      accessFlags: u(1),
      superclassIdx: u(2),
      interfacesOff: u(3),
      sourceFileIdx: u(4),
      annotationsOff: u(5),
      classDataOff: u(6),
    };
  }

  /**
   * The members a class declares (class_data_item), member indexes made absolute. Counts larger than
   * the bytes left could hold are `malformed`.
   */
  classData(off: number): DexClassData {
    const empty: DexClassData = { staticFields: [], instanceFields: [], directMethods: [], virtualMethods: [] };
    if (off === 0) return empty;
    const buffer = this.bytes.buffer;
    const length = buffer.length;
    this.bytes.need(off, 1, 'class data size');
    let p = off;
    // Unsigned LEB128 at p (at most 5 bytes), advancing p; past the end or too long: malformed.
    const uleb = (what: string): number => {
      let result = 0;
      for (let shift = 0; shift < 35; shift += 7) {
        if (p >= length) throw malformed('DEX', `${what} runs past the end of the data`, { offset: p });
        const byte = buffer[p++]!;
        result |= (byte & 0x7f) << shift;
        if ((byte & 0x80) === 0) return result >>> 0;
      }
      throw malformed('DEX', `${what} is longer than 5 bytes`, { offset: p - 5 });
    };
    const sizes = [uleb('class data size'), uleb('class data size'), uleb('class data size'), uleb('class data size')];
    const left = length - p;
    if (sizes.reduce((a, c) => a + c, 0) * 2 > left)
      throw malformed('DEX', 'class data declares more members than the file holds', { offset: off });
    const members = (count: number, method: boolean): DexMember[] => {
      const out: DexMember[] = new Array<DexMember>(count);
      let index = 0;
      for (let i = 0; i < count; i++) {
        const diff = uleb('uleb128');
        const flags = uleb('uleb128');
        const codeOff = method ? uleb('uleb128') : 0;
        index = i === 0 ? diff : index + diff;
        out[i] = { index, accessFlags: flags, codeOff };
      }
      return out;
    };
    return {
      staticFields: members(sizes[0]!, false),
      instanceFields: members(sizes[1]!, false),
      directMethods: members(sizes[2]!, true),
      virtualMethods: members(sizes[3]!, true),
    };
  }

  /** The code_item at `off`, its instruction array bounds-checked. */
  code(off: number): DexCode {
    const b = this.bytes;
    const insnsSize = b.u32(off + 12, 'code item');
    b.need(off + 16, insnsSize * 2, 'instructions');
    return {
      registers: b.u16(off),
      ins: b.u16(off + 2),
      outs: b.u16(off + 4),
      tries: b.u16(off + 6),
      insnsOff: off + 16,
      insnsSize,
    };
  }

  /**
   * The try blocks of the code_item at `off` (whose header {@link code} read), with their handlers.
   * `malformed` when they lie past the file or name a handler that is not there.
   */
  tries(off: number): DexTry[] {
    const b = this.bytes;
    const count = b.u16(off + 6, 'tries size');
    if (count === 0) return [];
    const insnsSize = b.u32(off + 12, 'code item');
    // try_items follow the instructions, 4-byte aligned (a padding unit after an odd count).
    const at = off + 16 + insnsSize * 2 + (insnsSize % 2) * 2;
    b.need(at, count * 8, 'try items');
    const list = at + count * 8;
    const out: DexTry[] = [];
    for (let i = 0; i < count; i++) {
      const start = b.u32(at + i * 8, 'try start');
      const units = b.u16(at + i * 8 + 4, 'try length');
      let p = list + b.u16(at + i * 8 + 6, 'handler offset');
      const [size, afterSize] = b.sleb128(p, 'catch handler size');
      p = afterSize;
      const catches: DexTry['catches'] = [];
      for (let k = 0; k < Math.abs(size); k++) {
        const [typeIdx, afterType] = b.uleb128(p, 'catch type');
        const [handler, afterHandler] = b.uleb128(afterType, 'catch address');
        catches.push({ type: this.type(typeIdx), handler });
        p = afterHandler;
      }
      if (size <= 0) catches.push({ type: null, handler: b.uleb128(p, 'catch-all address')[0] });
      out.push({ start, end: start + units, catches });
    }
    return out;
  }

  /** Type descriptors of the class annotations at an annotations_directory_item. */
  classAnnotations(directoryOff: number): string[] {
    if (directoryOff === 0) return [];
    try {
      const setOff = this.bytes.u32(directoryOff);
      if (setOff === 0) return [];
      const size = this.bytes.u32(setOff);
      this.bytes.need(setOff + 4, size * 4, 'annotation set');
      return Array.from({ length: Math.min(size, 1024) }, (_, i) => {
        const item = this.bytes.u32(setOff + 4 + i * 4);
        return this.type(this.bytes.uleb128(item + 1)[0]);
      });
    } catch {
      return [this.bad('annotations', directoryOff)];
    }
  }
}

/**
 * Every DEX section of the file `path` (one for versions 035–040; each of a version 041 container):
 * the first keeps `path`, a later one is `path#N` (N counting sections from 1). With `checksum`, each
 * header's checksum is checked too (for bytes nothing else vouches for, such as a DEX file given
 * alone; an APK's entries are checked against their CRC-32 already).
 */
export function openDexSections(
  path: string,
  bytes: Buffer,
  { checksum = false }: { checksum?: boolean } = {},
): { path: string; file: DexFile }[] {
  return DexFile.sections(bytes).map((at, i) => {
    const file = new DexFile(bytes, at);
    if (checksum) file.verifyChecksum();
    return { path: i === 0 ? path : `${path}#${i + 1}`, file };
  });
}
