import { ValueReader, methodHandleText, valueText } from './encodedValue.js';
import { DexCallSites } from './callSites.js';
import type { DexMethodHandle } from './callSites.js';
import type { DexFile } from './file.js';
import { FORMAT_UNITS, OPCODES } from './opcodes.js';
import type { IndexKind } from './opcodes.js';

/** Instructions listed at most per method; past it the listing is cut. */
export const MAX_INSTRUCTIONS = 20_000;

/** One disassembled instruction. */
export interface Instruction {
  /**
   * Offset in 16-bit code units from the start of the method's code; a branch target in `text` (`:N`)
   * is the offset of the instruction (or payload) it names.
   */
  offset: number;
  mnemonic: string;
  text: string;
}

/** What a method's instructions reference, each by index in the DEX. */
export interface References {
  strings: Map<number, string>;
  types: Map<number, string>;
  fields: Map<number, number>;
  methods: Map<number, number>;
}

/** A disassembled method body. */
export interface Disassembly {
  instructions: Instruction[];
  references: References;
  /** Why the listing stopped before the end of the code, when it did. */
  truncated: string | null;
  /** Unused opcodes met (listed as `.unknown`). */
  unknown: number;
}

const hex = (v: number, width = 4) => (v >>> 0).toString(16).padStart(width, '0');
const s8 = (v: number) => (v << 24) >> 24;
const s16 = (v: number) => (v << 16) >> 16;
const s4 = (v: number) => (v << 28) >> 28;

/** The descriptor text of a proto: `(II)V`. */
export function protoText(dex: DexFile, index: number): string {
  const p = dex.proto(index);
  return `(${p.parameters.join('')})${p.returnType}`;
}

/**
 * `call_site@0003(bootstrap handle, "name", (method type), further link arguments…)`: the call site's
 * link arguments decoded; the bare index when the file has no such call site or it cannot be read.
 */
export function callSiteText(dex: DexFile, index: number): string {
  const bare = `call_site@${hex(index)}`;
  try {
    const at = dex.section(0x0007, 4, index);
    if (at === null) return bare;
    const args = new ValueReader(dex, dex.bytes.u32(at, 'call_site_id')).array();
    return `${bare}(${args.map(valueText).join(', ')})`;
  } catch {
    return `${bare} (unreadable)`;
  }
}

const callSites = new WeakMap<DexFile, DexCallSites>();

/** The call sites and method handles of `dex`, read once per file. */
function callSitesOf(dex: DexFile): DexCallSites {
  let sites = callSites.get(dex);
  if (sites === undefined) callSites.set(dex, (sites = new DexCallSites(dex)));
  return sites;
}

/**
 * A method handle an instruction reaches (an invoke-custom's bootstrap method and method handle link
 * arguments, such as a lambda's body; a const-method-handle's) counts as a method or field it references.
 */
function noteHandle(handle: DexMethodHandle | null, refs: References): void {
  if (handle === null) return;
  const map = handle.kind === 'method' ? refs.methods : refs.fields;
  map.set(handle.index, (map.get(handle.index) ?? 0) + 1);
}

function indexText(dex: DexFile, kind: IndexKind, index: number, refs: References): string {
  switch (kind) {
    case 'string': {
      const value = dex.string(index);
      refs.strings.set(index, value);
      return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
    }
    case 'type': {
      const value = dex.type(index);
      refs.types.set(index, value);
      return value;
    }
    case 'field': {
      refs.fields.set(index, (refs.fields.get(index) ?? 0) + 1);
      const f = dex.field(index);
      return `${f.className}->${f.name}:${f.type}`;
    }
    case 'method': {
      refs.methods.set(index, (refs.methods.get(index) ?? 0) + 1);
      const m = dex.method(index);
      return `${m.className}->${m.name}(${m.proto.parameters.join('')})${m.proto.returnType}`;
    }
    case 'proto':
      return protoText(dex, index);
    case 'call_site': {
      const sites = callSitesOf(dex);
      try {
        const site = sites.callSite(index);
        for (const handle of site === null ? [] : [site.bootstrap, ...site.handles]) noteHandle(handle, refs);
      } catch {
        // The text says the call site is unreadable.
      }
      return callSiteText(dex, index);
    }
    case 'method_handle':
      try {
        noteHandle(callSitesOf(dex).handle(index), refs);
        return methodHandleText(dex, index);
      } catch {
        return `method_handle@${hex(index)} (unreadable)`;
      }
    default:
      return `${kind}@${hex(index)}`;
  }
}

/** Length in code units of the payload pseudo-instruction at `at`, or 0 when `at` holds none. */
function payloadUnits(code: (i: number) => number, at: number, size: number): number {
  const ident = code(at);
  if (ident === 0x0100) return at + 1 < size ? code(at + 1) * 2 + 4 : 0;
  if (ident === 0x0200) return at + 1 < size ? code(at + 1) * 4 + 2 : 0;
  if (ident === 0x0300 && at + 3 < size) {
    const width = code(at + 1);
    const count = code(at + 2) + code(at + 3) * 0x10000;
    return Math.ceil((width * count) / 2) + 4;
  }
  return 0;
}

/**
 * Disassembles the code at `insnsOff` (`insnsSize` code units) to smali-like text, collecting the
 * strings, types, fields and methods it references. Never reads outside the instruction array: an
 * instruction or payload that would run past it ends the listing (`truncated`).
 */
export function disassemble(dex: DexFile, insnsOff: number, insnsSize: number, limit = MAX_INSTRUCTIONS): Disassembly {
  const buffer = dex.bytes.buffer;
  const code = (i: number) => buffer.readUInt16LE(insnsOff + i * 2);
  const refs: References = { strings: new Map(), types: new Map(), fields: new Map(), methods: new Map() };
  const instructions: Instruction[] = [];
  let truncated: string | null = null;
  let unknown = 0;
  let at = 0;
  while (at < insnsSize) {
    if (instructions.length >= limit) {
      truncated = 'instruction-limit';
      break;
    }
    const unit = code(at);
    const op = unit & 0xff;
    if (op === 0 && unit !== 0) {
      const units = payloadUnits(code, at, insnsSize);
      if (units === 0 || at + units > insnsSize) {
        truncated = 'payload-past-end';
        break;
      }
      const kind = unit === 0x0100 ? 'packed-switch-payload' : unit === 0x0200 ? 'sparse-switch-payload' : 'array-data';
      instructions.push({ offset: at, mnemonic: `.${kind}`, text: `.${kind} (${units} units)` });
      at += units;
      continue;
    }
    const opcode = OPCODES[op];
    if (opcode === null || opcode === undefined) {
      unknown++;
      instructions.push({ offset: at, mnemonic: '.unknown', text: `.unknown 0x${hex(op, 2)}` });
      at += 1;
      continue;
    }
    const units = FORMAT_UNITS[opcode.format]!;
    if (at + units > insnsSize) {
      truncated = 'instruction-past-end';
      break;
    }
    const u = (i: number) => code(at + i);
    const A = (unit >> 8) & 0xf;
    const B = unit >> 12;
    const AA = unit >> 8;
    const u32 = (i: number) => u(i) + u(i + 1) * 0x10000;
    // A branch target is written as the offset it names, in the units and base of `offset`.
    const target = (delta: number) => `:${at + delta}`;
    const idx = (i: number, bits32 = false) => indexText(dex, opcode.index, bits32 ? u32(i) : u(i), refs);
    let operands: string;
    switch (opcode.format) {
      case '10x':
        operands = '';
        break;
      case '12x':
        operands = `v${A}, v${B}`;
        break;
      case '11n':
        operands = `v${A}, #${s4(B)}`;
        break;
      case '11x':
        operands = `v${AA}`;
        break;
      case '10t':
        operands = target(s8(AA));
        break;
      case '20t':
        operands = target(s16(u(1)));
        break;
      case '22x':
        operands = `v${AA}, v${u(1)}`;
        break;
      case '21t':
        operands = `v${AA}, ${target(s16(u(1)))}`;
        break;
      case '21s':
        operands = `v${AA}, #${s16(u(1))}`;
        break;
      case '21h':
        operands = `v${AA}, #0x${hex(u(1))}${op === 0x19 ? '000000000000' : '0000'}`;
        break;
      case '21c':
        operands = `v${AA}, ${idx(1)}`;
        break;
      case '23x':
        operands = `v${AA}, v${u(1) & 0xff}, v${u(1) >> 8}`;
        break;
      case '22b':
        operands = `v${AA}, v${u(1) & 0xff}, #${s8(u(1) >> 8)}`;
        break;
      case '22t':
        operands = `v${A}, v${B}, ${target(s16(u(1)))}`;
        break;
      case '22s':
        operands = `v${A}, v${B}, #${s16(u(1))}`;
        break;
      case '22c':
        operands = `v${A}, v${B}, ${idx(1)}`;
        break;
      case '30t':
        operands = target(u32(1) | 0);
        break;
      case '32x':
        operands = `v${u(1)}, v${u(2)}`;
        break;
      case '31i':
        operands = `v${AA}, #${u32(1) | 0}`;
        break;
      case '31t':
        operands = `v${AA}, ${target(u32(1) | 0)}`;
        break;
      case '31c':
        operands = `v${AA}, ${idx(1, true)}`;
        break;
      case '35c':
      case '45cc': {
        const regs = [u(2) & 0xf, (u(2) >> 4) & 0xf, (u(2) >> 8) & 0xf, u(2) >> 12, A].slice(0, Math.min(B, 5));
        operands = `{${regs.map((r) => `v${r}`).join(', ')}}, ${idx(1)}`;
        if (opcode.format === '45cc') operands += `, ${protoText(dex, u(3))}`;
        break;
      }
      case '3rc':
      case '4rcc': {
        const first = u(2);
        operands = AA === 0 ? `{}, ${idx(1)}` : `{v${first} .. v${first + AA - 1}}, ${idx(1)}`;
        if (opcode.format === '4rcc') operands += `, ${protoText(dex, u(3))}`;
        break;
      }
      case '51l': {
        const value = BigInt.asIntN(64, BigInt(u32(1)) + (BigInt(u32(3)) << 32n));
        operands = `v${AA}, #${value}`;
        break;
      }
      default:
        operands = '';
    }
    instructions.push({
      offset: at,
      mnemonic: opcode.name,
      text: operands === '' ? opcode.name : `${opcode.name} ${operands}`,
    });
    at += units;
  }
  return { instructions, references: refs, truncated, unknown };
}
