import type { BinaryLayoutResult } from './schemas.js';
import type { BinaryLayout } from './types.js';
import { mapCooperatively, runToCompletion } from './cooperative.js';
import type { Work } from './cooperative.js';

/** A virtual address in the default space: lowercase `0x` hexadecimal. */
export function hexAddress(value: number): string {
  return `0x${value.toString(16)}`;
}

/** The JSON form of a parsed layout: snake_case keys, addresses as `0x` strings, counts. */
export function normalizeLayout(layout: BinaryLayout): BinaryLayoutResult {
  return runToCompletion(normalizeLayoutWork(layout), undefined);
}

/** {@link normalizeLayout} as cooperative work (checkpoints every so many symbols, imports, exports). */
export function* normalizeLayoutWork(layout: BinaryLayout): Work<BinaryLayoutResult> {
  yield 'normalizing';
  const symbols = yield* mapCooperatively(layout.symbols, (s) => ({
    name: s.name,
    address: hexAddress(s.address),
    size: s.size,
    kind: s.kind,
    binding: s.binding,
    defined: s.defined,
    source: s.source,
  }));
  const imports = yield* mapCooperatively(layout.imports, (i) => ({
    name: i.name,
    library: i.library,
    address: i.address === null ? null : hexAddress(i.address),
  }));
  const exports = yield* mapCooperatively(layout.exports, (e) => ({
    name: e.name,
    address: hexAddress(e.address),
    ...(e.ordinal === undefined ? {} : { ordinal: e.ordinal }),
    ...(e.forwarder === undefined ? {} : { forwarder: e.forwarder }),
  }));
  const m = layout.mitigations;
  const entry = layout.entry === null ? null : hexAddress(layout.entry);
  return {
    view: 'complete',
    headers: {
      format: layout.format,
      architecture: layout.architecture,
      machine: layout.machine,
      bits: layout.bits,
      endianness: layout.endianness,
      file_type: layout.header.fileType,
      abi: layout.header.abi,
      entry,
      image_base: hexAddress(layout.imageBase),
      dotnet: layout.dotnet,
      slices: layout.slices ? layout.slices.map((s) => ({ ...s })) : null,
    },
    entry,
    sections: layout.sections.map((s) => ({
      name: s.name,
      address: hexAddress(s.address),
      offset: s.offset,
      size: s.size,
      file_size: s.fileSize,
      type: s.type,
      flags: { ...s.flags },
    })),
    segments: layout.segments.map((s) => ({
      type: s.type,
      address: hexAddress(s.address),
      offset: s.offset,
      memory_size: s.memorySize,
      file_size: s.fileSize,
      flags: { ...s.flags },
    })),
    symbols,
    imports,
    exports,
    libraries: [...layout.libraries],
    mitigations: {
      nx: m.nx,
      pie: m.pie,
      relro: m.relro,
      stack_canary: m.stackCanary,
      fortify: m.fortify,
      cfg: m.cfg,
      aslr: m.aslr,
      dep: m.dep,
      code_signature: m.codeSignature,
      high_entropy_va: m.highEntropyVa,
      safe_seh: m.safeSeh,
    },
    linkage: {
      kind: layout.linkage.kind,
      interpreter: layout.linkage.interpreter,
      needed: [...layout.libraries],
      soname: layout.linkage.soname,
      rpath: [...layout.linkage.rpath],
      runpath: [...layout.linkage.runpath],
    },
    counts: {
      sections: layout.sections.length,
      segments: layout.segments.length,
      symbols: layout.symbols.length,
      imports: layout.imports.length,
      exports: layout.exports.length,
      libraries: layout.libraries.length,
    },
  };
}
