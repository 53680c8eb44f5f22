// Importing the kit makes the block below an augmentation of its DeepPorts.
import type { ProgressSink } from '@rea/provider-kit';

/**
 * The engine-neutral native-analysis port. A deep provider's open session implements it; the native
 * tools read only through it. Addresses cross the port as canonical strings (see formatAddress).
 */

/** What a port can answer. A tool needing an absent capability refuses with `capability_unavailable`. */
export type NativeCapability =
  | 'documents'
  | 'procedures'
  | 'instructions'
  | 'basic_blocks'
  | 'callers_callees'
  | 'references'
  | 'strings'
  | 'names'
  | 'segments'
  | 'pseudocode'
  | 'high_pcode'
  | 'navigation'
  | 'comments'
  | 'bookmarks';

/** Every capability a port can declare, in a stable order. */
export const NATIVE_CAPABILITIES: readonly NativeCapability[] = [
  'documents',
  'procedures',
  'instructions',
  'basic_blocks',
  'callers_callees',
  'references',
  'strings',
  'names',
  'segments',
  'pseudocode',
  'high_pcode',
  'navigation',
  'comments',
  'bookmarks',
];

/** A page request: rows `[offset, offset + limit)`, optionally filtered by a case-insensitive substring. */
export interface PageRequest {
  offset: number;
  limit: number;
  query?: string;
}

/** One page of rows. `total` counts every matching row; `next_offset` is null on the last page. */
export interface Page<T> {
  items: T[];
  total: number;
  next_offset: number | null;
}

/** The open document (the analysed binary as the engine sees it). */
export interface NativeDocument {
  name: string;
  format: string;
  architecture: string;
  bits: number;
  endianness: 'little' | 'big';
  entry: string | null;
  image_base: string;
}

/** How a procedure was found. */
export type ProcedureSource =
  'entry' | 'symbol' | 'export' | 'import' | 'unwind-info' | 'call-target' | 'code-pointer' | 'engine';

/** One procedure in a listing. `kind: "import"` is a stub (PLT, IAT thunk, Mach-O stub) named by its import. */
export interface ProcedureSummary {
  address: string;
  name: string;
  size: number;
  kind: 'function' | 'import' | 'thunk';
  source: ProcedureSource;
}

/** One procedure in detail. */
export interface ProcedureInfo extends ProcedureSummary {
  /** Exclusive end of the procedure's extent. */
  end: string;
  instruction_count: number;
  basic_block_count: number;
  caller_count: number;
  callee_count: number;
  /** The library of an import stub, when known. */
  library: string | null;
}

/** One decoded instruction. `bytes` is lowercase hex. */
export interface NativeInstruction {
  address: string;
  size: number;
  bytes: string;
  mnemonic: string;
  operands: string;
}

/** One basic block: `[start, end)`. */
export interface BasicBlock {
  start: string;
  end: string;
  instruction_count: number;
}

/** One control-flow edge between block starts. `table`: a case of a resolved jump table. */
export interface FlowEdge {
  from: string;
  to: string;
  kind: 'fallthrough' | 'branch' | 'conditional' | 'table';
}

/** A transfer whose target the engine could not resolve: an explicit unknown, never silently dropped. */
export interface UnresolvedTransfer {
  site: string;
  kind: 'indirect-call' | 'indirect-jump';
  instruction: string;
}

/** The control-flow graph of one procedure. */
export interface ControlFlow {
  blocks: BasicBlock[];
  edges: FlowEdge[];
  unresolved: UnresolvedTransfer[];
}

/** One call relationship. `procedure` is the other end (the callee for callees, the caller for callers). */
export interface CallSite {
  site: string;
  procedure: string;
  name: string | null;
  kind: 'call' | 'tail-call' | 'import-call';
}

/** The calls a procedure makes, resolved and not. */
export interface Callees {
  calls: CallSite[];
  unresolved: UnresolvedTransfer[];
}

/** One cross-reference. */
export interface NativeReference {
  from: string;
  to: string;
  kind: 'call' | 'jump' | 'data' | 'code-pointer';
  /** The procedure containing `from`, when any. */
  from_procedure: string | null;
}

/** References to and from an address. */
export interface NativeReferences {
  to: NativeReference[];
  from: NativeReference[];
}

/** One string found in the binary's data. */
export interface NativeString {
  address: string;
  value: string;
  encoding: 'ascii' | 'utf-16le';
  section: string | null;
}

/** One name (label) at an address. */
export interface NativeName {
  address: string;
  name: string;
  kind: 'function' | 'import' | 'export' | 'object' | 'label';
}

/** One segment or section of the mapped image. */
export interface NativeSegment {
  name: string;
  start: string;
  end: string;
  size: number;
  file_offset: number | null;
  readable: boolean;
  writable: boolean;
  executable: boolean;
}

/**
 * One op of the decompiler's high p-code. Varnodes read `space:0xoffset:size` in the engine's own
 * space names (register, unique, const, ram, ...); `output` is null for ops that write nothing.
 */
export interface HighPcodeOp {
  address: string;
  mnemonic: string;
  output: string | null;
  inputs: string[];
}

/** Decompiled source for a procedure. */
export interface Pseudocode {
  language: string;
  text: string;
}

/** Analyst annotations at an address. */
export interface AddressComments {
  comment: string | null;
  inline_comment: string | null;
}

/** A bookmark at an address. */
export interface Bookmark {
  category: string;
  text: string;
}

/** The navigation cursor of one open session. */
export interface NavigationPosition {
  document: string | null;
  address: string | null;
}

/**
 * Per-session navigation state: the selected document and cursor. Engines with a UI report their own
 * cursor; an embedded engine keeps it here (see createNavigationState).
 */
export interface NavigationState {
  current(): NavigationPosition;
  /** Moves the cursor. The caller has already checked that the address is mapped. */
  goto(address: string): NavigationPosition;
}

/**
 * The port. Every method takes the request's AbortSignal and throws `cancelled` once it fires. A method
 * whose capability is not declared may be absent or may throw `capability_unavailable`; tools never call
 * it. Unknown addresses yield null (single lookups) or `not_found` (procedure-scoped reads).
 */
export interface NativePort {
  readonly kind: 'native-port';
  readonly capabilities: ReadonlySet<NativeCapability>;
  document(signal: AbortSignal): Promise<NativeDocument>;
  procedures(page: PageRequest, signal: AbortSignal): Promise<Page<ProcedureSummary>>;
  /** The procedure starting exactly at `address`, or null. */
  procedure(address: string, signal: AbortSignal): Promise<ProcedureInfo | null>;
  /**
   * The procedure starting exactly at `address`, or null, without the counts {@link NativePort.procedure}
   * computes (its blocks, callers and callees): for a caller that needs only its address, name or kind.
   * Optional: tools fall back to `procedure` when a port lacks it.
   */
  procedureSummary?(address: string, signal: AbortSignal): Promise<ProcedureSummary | null>;
  /**
   * How many imports the binary has: every symbol it takes from a library, as inspect_binary_layout
   * lists them, whether or not it has a stub. Many have no procedure of kind `"import"` to count: a PE
   * calls most imports through their slot (`call [__imp_x]`), and an ELF reaches data and `-fno-plt`
   * imports through the GOT. Optional: binary_overview counts the procedures of kind `"import"` when a
   * port lacks it.
   */
  importCount?(signal: AbortSignal): Promise<number>;
  /** The procedure whose extent contains `address`, or null. */
  containingProcedure(address: string, signal: AbortSignal): Promise<ProcedureSummary | null>;
  instructions(procedure: string, page: PageRequest, signal: AbortSignal): Promise<Page<NativeInstruction>>;
  controlFlow(procedure: string, signal: AbortSignal): Promise<ControlFlow>;
  callers(procedure: string, signal: AbortSignal): Promise<CallSite[]>;
  callees(procedure: string, signal: AbortSignal): Promise<Callees>;
  /** References to `address`, and from the instruction at `address`. */
  references(address: string, signal: AbortSignal): Promise<NativeReferences>;
  /** Every reference made from inside the procedure. */
  procedureReferences(procedure: string, signal: AbortSignal): Promise<NativeReference[]>;
  strings(page: PageRequest, signal: AbortSignal): Promise<Page<NativeString>>;
  /** The string starting at `address`, or null. */
  stringAt(address: string, signal: AbortSignal): Promise<NativeString | null>;
  names(page: PageRequest, signal: AbortSignal): Promise<Page<NativeName>>;
  nameAt(address: string, signal: AbortSignal): Promise<string | null>;
  /** The address of an exact name, or null. */
  addressOf(name: string, signal: AbortSignal): Promise<string | null>;
  segments(signal: AbortSignal): Promise<NativeSegment[]>;
  /** Whether `address` lies in the mapped image. */
  isMapped(address: string, signal: AbortSignal): Promise<boolean>;
  pseudocode?(procedure: string, signal: AbortSignal): Promise<Pseudocode>;
  /** The decompiler's high p-code ops of the procedure, paged (query filters on the mnemonic). */
  highPcode?(procedure: string, page: PageRequest, signal: AbortSignal): Promise<Page<HighPcodeOp>>;
  comments?(address: string, signal: AbortSignal): Promise<AddressComments>;
  bookmarks?(address: string, signal: AbortSignal): Promise<Bookmark[]>;
  readonly navigation?: NavigationState;
  /**
   * Readies an engine that starts on first use (an external engine importing and analysing the
   * target), reporting to `call.progress` while it waits. Tools call it before any other method, so the
   * first query carries the startup and its progress; every other method readies the engine itself
   * (without progress) when called first. Absent when the port is ready as soon as it is bound.
   */
  prepare?(call: { signal: AbortSignal; progress: ProgressSink }): Promise<void>;
}

declare module '@rea/provider-kit' {
  /** The native port: a deep provider with `port: "native"` opens a {@link NativePort}. */
  interface DeepPorts {
    native: NativePort;
  }
}

/** Narrows an engine session (typed unknown in the binding) to a native port. */
export function isNativePort(value: unknown): value is NativePort {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { kind?: unknown; capabilities?: unknown };
  return candidate.kind === 'native-port' && candidate.capabilities instanceof Set;
}

/**
 * An in-memory navigation cursor for engines without their own UI. Starts at `initial` (usually the
 * entry point) in `document`.
 */
export function createNavigationState(document: string, initial: string | null): NavigationState {
  let position: NavigationPosition = { document, address: initial };
  return {
    current: () => ({ ...position }),
    goto: (address) => {
      position = { document, address };
      return { ...position };
    },
  };
}

/** Slices `rows` into a page, filtering by `query` on the text `key` returns (case-insensitive). */
export function paginate<T>(rows: readonly T[], page: PageRequest, key?: (row: T) => string): Page<T> {
  const needle = page.query?.toLowerCase();
  const matching = needle && key ? rows.filter((row) => key(row).toLowerCase().includes(needle)) : rows;
  const items = matching.slice(page.offset, page.offset + page.limit);
  const end = page.offset + items.length;
  return { items: [...items], total: matching.length, next_offset: end < matching.length ? end : null };
}
