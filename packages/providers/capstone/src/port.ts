import { ReaError, throwIfAborted } from '@rea/evidence';
import type { BinaryLayout } from '@rea/artifact';
import { NATIVE_CAPABILITIES, createNavigationState, formatAddress, parseAddress } from '@rea/native/core';
import type {
  CallSite,
  Callees,
  ControlFlow,
  NativeCapability,
  NativeDocument,
  NativeInstruction,
  NativeName,
  NativePort,
  NativeReference,
  NativeReferences,
  NativeSegment,
  NativeString,
  NavigationState,
  Page,
  PageRequest,
  ProcedureInfo,
  ProcedureSummary,
} from '@rea/native';
import type { DecoderSource } from './engine.js';
import type { Discovery, ProcedureRecord } from './analysis/discovery.js';
import { lowerBound } from './analysis/sweep.js';
import type { StringTable } from './analysis/strings.js';
import type { ProcedureGraph } from './analysis/graph.js';
import { addressOfName } from './names.js';
import type { NameIndex } from './names.js';
import { Pacer } from './analysis/pace.js';
import { dataPointersTo } from './analysis/dataPointers.js';
import { pacedMap, pacedPage, pageOfCount } from './paging.js';

/** Instructions decoded at a time when a procedure is disassembled (a turn may follow each batch). */
export const DECODE_BATCH = 256;
/** Bytes decoded past a batch's last instruction, so that an instruction longer than its table entry decodes as a whole. */
const DECODE_MARGIN = 16;

/** What the embedded engine answers. No pseudocode, comments or bookmarks. */
export const CAPSTONE_CAPABILITIES: readonly NativeCapability[] = NATIVE_CAPABILITIES.filter(
  (c) => !['pseudocode', 'high_pcode', 'comments', 'bookmarks'].includes(c),
);

const hex = (a: number) => formatAddress(a);

function toOffset(address: string): number {
  const parsed = parseAddress(address);
  return parsed.space === null ? parsed.offset : -1;
}

/** The native port over one analysed binary. */
export class CapstonePort implements NativePort {
  readonly kind = 'native-port' as const;
  readonly capabilities: ReadonlySet<NativeCapability> = new Set(CAPSTONE_CAPABILITIES);
  readonly navigation: NavigationState;
  private readonly graph: ProcedureGraph;

  constructor(
    private readonly layout: BinaryLayout,
    private readonly decoder: DecoderSource,
    private readonly discovery: Discovery,
    private readonly stringTable: StringTable,
    private readonly documentName: string,
    graph: ProcedureGraph,
    private readonly nameIndex: NameIndex,
    /** The pacer of one query: long listings and disassembly give the event loop turns and stop at a cancel. */
    private readonly pacerFor: (signal: AbortSignal) => Pacer = (signal) => new Pacer(signal),
  ) {
    this.graph = graph;
    this.navigation = createNavigationState(documentName, layout.entry === null ? null : hex(layout.entry));
  }

  private summary(p: ProcedureRecord): ProcedureSummary {
    return { address: hex(p.start), name: p.name, size: p.end - p.start, kind: p.kind, source: p.source };
  }

  private required(address: string): ProcedureRecord {
    const p = this.graph.procedureAt(toOffset(address));
    if (!p) {
      throw new ReaError('not_found', `No procedure starts at ${address}.`, {
        details: { address },
        remediation: 'Use resolve_containing_procedure to find the procedure around an address.',
      });
    }
    return p;
  }

  async document(): Promise<NativeDocument> {
    const l = this.layout;
    return {
      name: this.documentName,
      format: l.format,
      architecture: l.architecture,
      bits: l.bits,
      endianness: l.endianness,
      entry: l.entry === null ? null : hex(l.entry),
      image_base: hex(l.imageBase),
    };
  }

  async procedures(page: PageRequest, signal: AbortSignal): Promise<Page<ProcedureSummary>> {
    throwIfAborted(signal, 'procedures');
    const pacer = this.pacerFor(signal);
    const found = await pacedPage(this.discovery.procedures, page, (p) => p.name, pacer, 'procedures');
    return { ...found, items: await pacedMap(found.items, (p) => this.summary(p), pacer, 'procedures') };
  }

  async procedure(address: string, signal: AbortSignal): Promise<ProcedureInfo | null> {
    throwIfAborted(signal, 'procedure');
    const p = this.graph.procedureAt(toOffset(address));
    if (!p) return null;
    const pacer = this.pacerFor(signal);
    const flow = await this.graph.controlFlow(p, pacer, 'procedure');
    const callees = await this.graph.callees(p, pacer, 'procedure');
    return {
      ...this.summary(p),
      end: hex(p.end),
      instruction_count: this.graph.instructionRange(p)[1] - this.graph.instructionRange(p)[0],
      basic_block_count: flow.blocks.length,
      caller_count: this.graph.callers(p).length,
      callee_count: callees.calls.length,
      library: p.library,
    };
  }

  async procedureSummary(address: string, signal: AbortSignal): Promise<ProcedureSummary | null> {
    throwIfAborted(signal, 'procedure');
    const p = this.graph.procedureAt(toOffset(address));
    return p ? this.summary(p) : null;
  }

  /**
   * Every import of the binary, as inspect_binary_layout lists them: an ELF's undefined dynamic symbols
   * (also those the code reaches through the GOT with no PLT stub, and data), a PE's import and
   * delay-load directories, a Mach-O's bound symbols. Discovery makes procedures only of those with a
   * stub (ELF PLT, Mach-O stubs: kind "import") or a `jmp [__imp_x]` thunk (kind "thunk").
   */
  async importCount(signal: AbortSignal): Promise<number> {
    throwIfAborted(signal, 'procedures');
    return this.layout.imports.length;
  }

  async containingProcedure(address: string, signal: AbortSignal): Promise<ProcedureSummary | null> {
    throwIfAborted(signal, 'procedure');
    const p = this.graph.containing(toOffset(address));
    return p ? this.summary(p) : null;
  }

  async instructions(procedure: string, page: PageRequest, signal: AbortSignal): Promise<Page<NativeInstruction>> {
    throwIfAborted(signal, 'instructions');
    const p = this.required(procedure);
    const [lo, hi] = this.graph.instructionRange(p);
    const total = hi - lo;
    const first = Math.min(lo + page.offset, hi);
    const last = Math.min(first + page.limit, hi);
    const items: NativeInstruction[] = [];
    const t = this.discovery.table;
    const pacer = this.pacerFor(signal);
    // Decoded a batch at a time, with a turn of the event loop (and a look at the signal) between batches.
    const stop = t.addressAt(last - 1) + t.size[last - 1]!;
    let i = first;
    while (i < last) {
      await pacer.maybe('instructions');
      const batchEnd = Math.min(last, i + DECODE_BATCH);
      const start = t.addressAt(i);
      const batchStop = Math.min(stop, t.addressAt(batchEnd - 1) + t.size[batchEnd - 1]! + DECODE_MARGIN);
      const bytes = this.layout.readAt(start, batchStop - start);
      const decoded = bytes ? (await this.decoder.get()).decode(bytes, start) : [];
      let progressed = false;
      for (const d of decoded) {
        if (i >= batchEnd || d.address !== t.addressAt(i)) break;
        items.push({
          address: hex(d.address),
          size: d.size,
          bytes: Buffer.from(d.bytes).toString('hex'),
          mnemonic: d.mnemonic,
          operands: d.operands,
        });
        i += 1;
        progressed = true;
      }
      if (!progressed) {
        items.push({ address: hex(t.addressAt(i)), size: t.size[i]!, bytes: '', mnemonic: '(bad)', operands: '' });
        i += 1;
      }
    }
    const end = page.offset + items.length;
    return { items, total, next_offset: end < total ? end : null };
  }

  async controlFlow(procedure: string, signal: AbortSignal): Promise<ControlFlow> {
    throwIfAborted(signal, 'control-flow');
    return this.graph.controlFlow(this.required(procedure), this.pacerFor(signal), 'control-flow');
  }

  async callers(procedure: string, signal: AbortSignal): Promise<CallSite[]> {
    throwIfAborted(signal, 'callers');
    return this.graph.callers(this.required(procedure));
  }

  async callees(procedure: string, signal: AbortSignal): Promise<Callees> {
    throwIfAborted(signal, 'callees');
    return this.graph.callees(this.required(procedure), this.pacerFor(signal), 'callees');
  }

  async references(address: string, signal: AbortSignal): Promise<NativeReferences> {
    throwIfAborted(signal, 'references');
    const a = toOffset(address);
    // What code refers to it, then the words of data that hold it (function tables, pointer arrays).
    const held = dataPointersTo(this.layout, a).map((from): NativeReference => ({
      from: hex(from),
      to: hex(a),
      kind: 'data',
      from_procedure: null,
    }));
    return { to: [...this.graph.referencesTo(a), ...held], from: this.graph.referencesFrom(a) };
  }

  async procedureReferences(procedure: string, signal: AbortSignal): Promise<NativeReference[]> {
    throwIfAborted(signal, 'references');
    return this.graph.referencesWithin(this.required(procedure));
  }

  private stringOut(i: number): NativeString {
    const s = this.stringTable.record(i);
    return { address: hex(s.address), value: s.value, encoding: s.encoding, section: s.section };
  }

  async strings(page: PageRequest, signal: AbortSignal): Promise<Page<NativeString>> {
    throwIfAborted(signal, 'strings');
    const pacer = this.pacerFor(signal);
    const table = this.stringTable;
    // Strings are numbered rows of the table; only a search decodes them all (to match their text).
    const found =
      pageOfCount(table.count, page) ??
      (await pacedPage(
        Array.from({ length: table.count }, (_, i) => i),
        page,
        (i) => table.value(i),
        pacer,
        'strings',
      ));
    return { ...found, items: await pacedMap(found.items, (i) => this.stringOut(i), pacer, 'strings') };
  }

  async stringAt(address: string, signal: AbortSignal): Promise<NativeString | null> {
    throwIfAborted(signal, 'strings');
    const a = toOffset(address);
    const i = lowerBound(this.stringTable.addresses, a);
    return i < this.stringTable.count && this.stringTable.addresses[i] === a ? this.stringOut(i) : null;
  }

  async names(page: PageRequest, signal: AbortSignal): Promise<Page<NativeName>> {
    throwIfAborted(signal, 'names');
    return pacedPage(this.nameIndex.list, page, (n) => n.name, this.pacerFor(signal), 'names');
  }

  async nameAt(address: string, signal: AbortSignal): Promise<string | null> {
    throwIfAborted(signal, 'names');
    const a = toOffset(address);
    return this.nameIndex.byAddress.get(a) ?? this.graph.procedureAt(a)?.name ?? null;
  }

  async addressOf(name: string, signal: AbortSignal): Promise<string | null> {
    throwIfAborted(signal, 'names');
    const a = addressOfName(this.nameIndex, name, (address) => this.graph.procedureAt(address));
    return a === undefined ? null : hex(a);
  }

  async segments(signal: AbortSignal): Promise<NativeSegment[]> {
    throwIfAborted(signal, 'segments');
    return this.layout.sections
      .filter((s) => s.flags.alloc && s.size > 0)
      .sort((a, b) => a.address - b.address)
      .map((s) => ({
        name: s.name,
        start: hex(s.address),
        end: hex(s.address + s.size),
        size: s.size,
        file_offset: s.fileSize > 0 ? s.offset : null,
        readable: true,
        writable: s.flags.write,
        executable: s.flags.execute,
      }));
  }

  async isMapped(address: string, signal: AbortSignal): Promise<boolean> {
    throwIfAborted(signal, 'navigation');
    const a = toOffset(address);
    return a >= 0 && this.layout.sections.some((s) => s.flags.alloc && a >= s.address && a < s.address + s.size);
  }
}
