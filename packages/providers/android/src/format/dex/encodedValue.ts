// encoded_value and encoded_annotation of the DEX format (static field values, annotation elements,
// call-site link arguments), decoded to tagged values, and their text as a listing shows it.
import { malformed } from '../bytes.js';
import { HANDLE_TYPES } from './callSites.js';
import type { DexFile } from './file.js';

/** Nesting of arrays and annotations past which a value is `malformed`. */
export const MAX_VALUE_DEPTH = 16;
/** Elements of one array or annotation decoded at most; a larger count is `malformed`. */
export const MAX_VALUE_ELEMENTS = 65_536;

/** A decoded encoded_value: its DEX value type and its value (indexes resolved to text). */
export type DexValue =
  | { type: 'byte' | 'short' | 'char' | 'int'; value: number }
  /** A float or double; a value JSON has no number for is named: "Infinity", "-Infinity" or "NaN". */
  | { type: 'float' | 'double'; value: number | 'Infinity' | '-Infinity' | 'NaN' }
  | { type: 'long'; value: string }
  | { type: 'boolean'; value: boolean }
  | { type: 'null'; value: null }
  | { type: 'string' | 'type' | 'method_type' | 'field' | 'method' | 'enum' | 'method_handle'; value: string }
  | { type: 'array'; value: DexValue[] }
  | { type: 'annotation'; value: DexAnnotationValue };

/**
 * A float's value as JSON holds it: the number, or for the values JSON has no number for (an annotation
 * such as `@FloatRange(from = Float.NEGATIVE_INFINITY)` holds one) its name, as Java prints it.
 */
function jsonNumber(value: number): number | 'Infinity' | '-Infinity' | 'NaN' {
  if (Number.isFinite(value)) return value;
  return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
}

/** An encoded_annotation: its type and its named elements. */
export interface DexAnnotationValue {
  type: string;
  elements: { name: string; value: DexValue }[];
}

/** The text of method handle `index` of `dex` (`invoke-static Lc;->m(I)V`), read from its map_list. */
export function methodHandleText(dex: DexFile, index: number): string {
  const at = dex.section(0x0008, 8, index);
  if (at === null) return `method_handle@${index.toString(16).padStart(4, '0')}`;
  const b = dex.bytes;
  const type = b.u16(at, 'method_handle');
  const target = b.u16(at + 4, 'method_handle');
  const name = HANDLE_TYPES[type] ?? `type-${type}`;
  if (type <= 3) {
    const f = dex.field(target);
    return `${name} ${f.className}->${f.name}:${f.type}`;
  }
  const m = dex.method(target);
  return `${name} ${m.className}->${m.name}(${m.proto.parameters.join('')})${m.proto.returnType}`;
}

/** Reads encoded values from `dex` at a moving offset; every read is bounds-checked (`malformed`). */
export class ValueReader {
  constructor(
    private readonly dex: DexFile,
    public at: number,
  ) {}

  private uleb(): number {
    const [v, next] = this.dex.bytes.uleb128(this.at, 'encoded value');
    this.at = next;
    return v;
  }

  private count(): number {
    const n = this.uleb();
    if (n > MAX_VALUE_ELEMENTS) throw malformed('DEX', 'an encoded array or annotation is too large', { count: n });
    return n;
  }

  /** The encoded_array here: its values. */
  array(depth = 0): DexValue[] {
    const n = this.count();
    const out: DexValue[] = [];
    for (let i = 0; i < n; i++) out.push(this.value(depth + 1));
    return out;
  }

  /** The encoded_annotation here. */
  annotation(depth = 0): DexAnnotationValue {
    const type = this.dex.type(this.uleb());
    const n = this.count();
    const elements: DexAnnotationValue['elements'] = [];
    for (let i = 0; i < n; i++) {
      const name = this.dex.string(this.uleb());
      elements.push({ name, value: this.value(depth + 1) });
    }
    return { type, elements };
  }

  /** The encoded_value here. */
  value(depth = 0): DexValue {
    if (depth > MAX_VALUE_DEPTH) throw malformed('DEX', 'encoded values nested too deeply');
    const b = this.dex.bytes;
    const head = b.u8(this.at, 'encoded value');
    this.at += 1;
    const type = head & 0x1f;
    const arg = head >> 5;
    if (type === 0x1c) return { type: 'array', value: this.array(depth) };
    if (type === 0x1d) return { type: 'annotation', value: this.annotation(depth) };
    if (type === 0x1e) return { type: 'null', value: null };
    if (type === 0x1f) return { type: 'boolean', value: arg !== 0 };
    const size = arg + 1;
    b.need(this.at, size, 'encoded value');
    const bytes = b.buffer.subarray(this.at, this.at + size);
    this.at += size;
    // Little-endian, `size` bytes: zero- or sign-extended, or (float, double) zero-padded on the right.
    let unsigned = 0n;
    for (let i = size - 1; i >= 0; i--) unsigned = (unsigned << 8n) | BigInt(bytes[i]!);
    const signed = BigInt.asIntN(size * 8, unsigned);
    const index = Number(unsigned);
    const dex = this.dex;
    switch (type) {
      case 0x00:
        return { type: 'byte', value: Number(signed) };
      case 0x02:
        return { type: 'short', value: Number(signed) };
      case 0x03:
        return { type: 'char', value: index };
      case 0x04:
        return { type: 'int', value: Number(BigInt.asIntN(32, signed)) };
      case 0x06:
        return { type: 'long', value: signed.toString() };
      case 0x10: {
        const raw = Buffer.alloc(4);
        raw.writeUInt32LE(Number((unsigned << BigInt((4 - size) * 8)) & 0xffffffffn));
        return { type: 'float', value: jsonNumber(raw.readFloatLE(0)) };
      }
      case 0x11: {
        const raw = Buffer.alloc(8);
        raw.writeBigUInt64LE(BigInt.asUintN(64, unsigned << BigInt((8 - size) * 8)));
        return { type: 'double', value: jsonNumber(raw.readDoubleLE(0)) };
      }
      case 0x15: {
        const p = dex.proto(index);
        return { type: 'method_type', value: `(${p.parameters.join('')})${p.returnType}` };
      }
      case 0x16:
        return { type: 'method_handle', value: methodHandleText(dex, index) };
      case 0x17:
        return { type: 'string', value: dex.string(index) };
      case 0x18:
        return { type: 'type', value: dex.type(index) };
      case 0x19:
      case 0x1b: {
        const f = dex.field(index);
        return { type: type === 0x19 ? 'field' : 'enum', value: `${f.className}->${f.name}:${f.type}` };
      }
      case 0x1a: {
        const m = dex.method(index);
        return {
          type: 'method',
          value: `${m.className}->${m.name}(${m.proto.parameters.join('')})${m.proto.returnType}`,
        };
      }
      default:
        throw malformed('DEX', `unknown encoded value type 0x${type.toString(16)}`, { offset: this.at - size - 1 });
    }
  }
}

/** The text of a value as a listing shows it: strings quoted, arrays in braces, annotations with `@`. */
export function valueText(v: DexValue): string {
  switch (v.type) {
    case 'string':
      return JSON.stringify(v.value.length > 200 ? `${v.value.slice(0, 200)}…` : v.value);
    case 'array':
      return `{${v.value.map(valueText).join(', ')}}`;
    case 'annotation':
      return `@${v.value.type}(${v.value.elements.map((e) => `${e.name}=${valueText(e.value)}`).join(', ')})`;
    case 'null':
      return 'null';
    default:
      return String(v.value);
  }
}
