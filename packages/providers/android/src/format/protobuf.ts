// A minimal reader of the protocol buffer wire format: enough to walk the messages aapt2 writes for app
// bundles (XML documents and resource tables) without a schema compiler. Every read is bounds-checked.
import { malformed } from './bytes.js';

/** One field of a message: its number, wire type and value (a number, or the bytes of a length-delimited field). */
export interface ProtoField {
  field: number;
  wire: number;
  /** Varints (exact up to 2^53) and fixed-width integers. */
  number: number;
  /** The low 32 bits of a varint or fixed field, unsigned (`| 0` gives an int32). */
  low32: number;
  /** The payload of a length-delimited field (a string, bytes or an embedded message), else empty. */
  bytes: Buffer;
}

function varint(buffer: Buffer, at: number, format: string): [number, number, number] {
  let value = 0;
  let low = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (at + i >= buffer.length) throw malformed(format, 'a varint runs past the end of its message', { offset: at });
    const byte = buffer[at + i]!;
    if (scale < 2 ** 53) value += (byte & 0x7f) * scale;
    if (i < 5) low = (low | ((byte & 0x7f) << (7 * i))) >>> 0;
    scale *= 128;
    if ((byte & 0x80) === 0) return [value, at + i + 1, low];
  }
  throw malformed(format, 'a varint is longer than ten bytes', { offset: at });
}

/**
 * The fields of one message, in order. A field whose length or wire type is impossible is `malformed`
 * (`format` names the structure in the error); groups (wire types 3 and 4) are refused as aapt2 never
 * writes them.
 */
export function protoFields(message: Buffer, format: string): ProtoField[] {
  const out: ProtoField[] = [];
  let at = 0;
  while (at < message.length) {
    const [key, next] = varint(message, at, format);
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field === 0) throw malformed(format, 'a field number is zero', { offset: at });
    at = next;
    if (wire === 0) {
      const [value, after, low32] = varint(message, at, format);
      out.push({ field, wire, number: value, low32, bytes: EMPTY });
      at = after;
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      if (at + size > message.length) throw malformed(format, 'a fixed-width field runs past its message');
      const number = wire === 5 ? message.readUInt32LE(at) : Number(message.readBigUInt64LE(at) & 0x1fffffffffffffn);
      out.push({ field, wire, number, low32: message.readUInt32LE(at), bytes: message.subarray(at, at + size) });
      at += size;
    } else if (wire === 2) {
      const [length, after] = varint(message, at, format);
      if (after + length > message.length) throw malformed(format, 'a field runs past its message', { offset: at });
      out.push({ field, wire, number: length, low32: length >>> 0, bytes: message.subarray(after, after + length) });
      at = after + length;
    } else {
      throw malformed(format, `wire type ${wire} is not used here`, { offset: at });
    }
  }
  return out;
}

const EMPTY = Buffer.alloc(0);

/** The fields of `message`, grouped by field number (repeated fields keep their order). */
export function protoMessage(message: Buffer, format: string): Map<number, ProtoField[]> {
  const byNumber = new Map<number, ProtoField[]>();
  for (const f of protoFields(message, format)) {
    const list = byNumber.get(f.field);
    if (list === undefined) byNumber.set(f.field, [f]);
    else list.push(f);
  }
  return byNumber;
}

/** Accessors over a message's fields: the last value of a singular field, every value of a repeated one. */
export class Proto {
  private readonly fields: Map<number, ProtoField[]>;

  constructor(
    readonly bytes: Buffer,
    readonly format: string,
  ) {
    this.fields = protoMessage(bytes, format);
  }

  /** True when the field is present. */
  has(field: number): boolean {
    return this.fields.has(field);
  }

  /** The numeric value of a varint or fixed field (0, the protobuf default, when absent). */
  number(field: number): number {
    return this.fields.get(field)?.at(-1)?.number ?? 0;
  }

  /** The low 32 bits of a varint or fixed field, unsigned (0 when absent). */
  low32(field: number): number {
    return this.fields.get(field)?.at(-1)?.low32 ?? 0;
  }

  /** A string field as UTF-8 (`""` when absent). */
  string(field: number): string {
    return this.fields.get(field)?.at(-1)?.bytes.toString('utf8') ?? '';
  }

  /** An embedded message, or null when absent. */
  message(field: number): Proto | null {
    const f = this.fields.get(field)?.at(-1);
    return f === undefined || f.wire !== 2 ? null : new Proto(f.bytes, this.format);
  }

  /** Every embedded message of a repeated field. */
  messages(field: number): Proto[] {
    return (this.fields.get(field) ?? []).filter((f) => f.wire === 2).map((f) => new Proto(f.bytes, this.format));
  }
}
