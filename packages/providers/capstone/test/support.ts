import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CAPSTONE_CAPABILITIES, createCapstoneProvider } from '@rea/provider-capstone';
import type { NativePort, ProcedureSummary } from '@rea/native';
import { createCallSupervisor } from '@rea/provider-kit';
import type { DeepSession, OpenOptions, ToolContext, LedgerAccess } from '@rea/provider-kit';
import type { EvidenceRecord, RetainedEvidenceRef } from '@rea/evidence';
import { ReaError } from '@rea/evidence';
import { compileFixture } from '@rea/test-helpers';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/**
 * fixtures/freestanding.c built as a static, non-PIE 32-bit x86 program with gcc -m32 (no libc, no
 * inlining): non-PIC code that loads addresses as immediates. Returns the binary's path.
 */
export function freestandingX86(): string {
  return compileFixture({
    source: join(FIXTURES, 'freestanding.c'),
    compiler: 'gcc',
    args: [
      '-m32',
      '-O2',
      '-fno-inline',
      '-nostdlib',
      '-static',
      '-ffreestanding',
      '-fno-builtin',
      '-fno-pie',
      '-no-pie',
    ],
    output: 'freestanding-x86',
  });
}

/** Opens a file with the Capstone provider. */
export async function openWithCapstone(path: string, signal = new AbortController().signal, deadline?: number) {
  const provider = createCapstoneProvider(deadline === undefined ? {} : { openDeadlineMs: deadline });
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    bytes = Buffer.alloc(0);
  }
  const target = {
    path,
    format: 'native',
    sha256: createHash('sha256').update(bytes).digest('hex'),
    size: bytes.length,
  };
  const session: DeepSession = await provider.open(target, { signal } as unknown as OpenOptions);
  return { session, port: session.session as NativePort, target, provider };
}

/** Every procedure through the port's paging. */
export async function allProcedures(port: NativePort): Promise<ProcedureSummary[]> {
  const out: ProcedureSummary[] = [];
  const signal = new AbortController().signal;
  for (let offset: number | null = 0; offset !== null;) {
    const page = await port.procedures({ offset, limit: 500 }, signal);
    out.push(...page.items);
    offset = page.next_offset;
  }
  return out;
}

/** Code section ranges from `objdump -h` (sections flagged CODE). */
export function codeRanges(objdump: string, file: string): Array<[number, number]> {
  const lines = execFileSync(objdump, ['-h', file], { encoding: 'utf8' }).split('\n');
  const out: Array<[number, number]> = [];
  for (let i = 0; i + 1 < lines.length; i += 1) {
    const m = /^\s*\d+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s/.exec(lines[i]!);
    if (m && lines[i + 1]!.includes('CODE')) {
      const start = Number.parseInt(m[2]!, 16);
      out.push([start, start + Number.parseInt(m[1]!, 16)]);
    }
    const llvm = /^\s*\d+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+TEXT/.exec(lines[i]!);
    if (llvm) {
      const start = Number.parseInt(llvm[2]!, 16);
      out.push([start, start + Number.parseInt(llvm[1]!, 16)]);
    }
  }
  return out;
}

/**
 * Function symbols from nm: text symbols (T, t, W, i) inside a CODE section per objdump, excluding
 * section symbols (".text"). Address → names.
 */
export function nmFunctions(nm: string, file: string, dynamic = false, objdump = 'objdump'): Map<number, string[]> {
  const text = execFileSync(nm, [...(dynamic ? ['-D'] : []), '--defined-only', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const ranges = codeRanges(objdump, file);
  const out = new Map<number, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+) ([TtWi]) (\S+)/.exec(line);
    if (!m || m[3]!.startsWith('.')) continue;
    const address = Number.parseInt(m[1]!, 16);
    if (!ranges.some(([a, b]) => address >= a && address < b)) continue;
    out.set(address, [...(out.get(address) ?? []), m[3]!]);
  }
  return out;
}

/** Direct call sites from objdump: `site>target`. */
export function objdumpCalls(objdump: string, file: string): Set<string> {
  const text = execFileSync(objdump, ['-d', '--no-show-raw-insn', file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^\s*([0-9a-f]+):\s+(?:bnd\s+|notrack\s+)?(?:call|callq|bl)\s+(?:0x)?([0-9a-f]+)(?:\s|$)/.exec(line);
    if (m) out.add(`0x${Number.parseInt(m[1]!, 16).toString(16)}>0x${Number.parseInt(m[2]!, 16).toString(16)}`);
  }
  return out;
}

/** Direct call sites through the port: `site>target` over every procedure's callees. */
export async function portCalls(port: NativePort): Promise<Set<string>> {
  const signal = new AbortController().signal;
  const out = new Set<string>();
  for (const p of await allProcedures(port)) {
    for (const c of (await port.callees(p.address, signal)).calls)
      if (c.kind === 'call') out.add(`${c.site}>${c.procedure}`);
  }
  return out;
}

const madeDirectories: string[] = [];

/** A private temporary directory, removed by {@link removeTempDirs} (each test file calls it in `afterAll`). */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rea-capstone-'));
  madeDirectories.push(dir);
  return dir;
}

/** Removes every directory {@link tempDir} made in this test file. */
export function removeTempDirs(): void {
  for (const dir of madeDirectories.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Writes `count` chained functions as C source and returns its path. */
export function writeManyFunctions(count: number): string {
  const lines = ['/* generated: chained functions for pagination */', 'int sink;'];
  for (let i = count - 1; i >= 0; i -= 1) {
    const next = i + 1 < count ? `f${i + 1}(x + ${i % 7})` : 'x';
    lines.push(`__attribute__((noinline)) int f${i}(int x) { sink += x; return ${next}; }`);
  }
  lines.push('int main(void) { return f0(1) & 1; }');
  const path = join(tempDir(), `many-${count}.c`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** A ToolContext bound to an open Capstone session, with an in-memory ledger. */
export function toolContext(
  opened: Awaited<ReturnType<typeof openWithCapstone>>,
  signal = new AbortController().signal,
) {
  const records = new Map<string, EvidenceRecord>();
  const ledger: LedgerAccess = {
    resolve(ref: RetainedEvidenceRef) {
      const r = records.get(ref.evidence_id);
      if (!r)
        throw new ReaError('not_found', `Evidence ${ref.evidence_id} is not retained.`, {
          details: { reason: 'missing', evidence_id: ref.evidence_id },
        });
      return r;
    },
    get: (id: string) => records.get(id),
    retain: (r: EvidenceRecord) => (records.set(r.evidence_id, r), r),
  };
  const context: ToolContext = {
    session: {
      target: { path: opened.target.path, format: 'elf', sha256: opened.target.sha256, size: opened.target.size },
      binding: {
        provider: opened.session.provider,
        port: 'native',
        // As a host lists the native providers of its registry: the embedded engine and two
        // decompiling engines declaring pseudocode (stand-in declarations; no engine runs).
        peers: [
          { id: 'capstone', name: 'Capstone', capabilities: [...CAPSTONE_CAPABILITIES] },
          { id: 'ghidra', name: 'Ghidra (declared)', capabilities: ['procedures', 'pseudocode'] },
          { id: 'hopper', name: 'Hopper (declared)', capabilities: ['procedures', 'pseudocode'] },
        ],
        selection_source: 'argument',
        analysis_profile: opened.session.analysis_profile,
        session: opened.session.session,
      },
      run_id: 'run-test',
    },
    platform: process.platform,
    signal,
    progress: { report: () => undefined },
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    ledger,
    clientFeatures: new Set(),
    supervisor: createCallSupervisor(),
  };
  return { context, retain: (r: EvidenceRecord) => records.set(r.evidence_id, r) };
}

/** System binaries present on this host, largest last: ls always, then whichever larger ones exist. */
export function systemBinaries(): string[] {
  return ['/usr/bin/ls', '/usr/bin/tmux', '/usr/bin/bash', '/usr/bin/gpg', '/usr/bin/git']
    .filter((f) => existsSync(f))
    .sort((a, b) => statSync(a).size - statSync(b).size);
}

/** PE import address table slots from nm's `__imp_` symbols: slot address → import name (stdcall `@n` and one leading `_` removed). */
export function nmImportSlots(nm: string, file: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of execFileSync(nm, [file], { encoding: 'utf8', maxBuffer: 1 << 28 }).split('\n')) {
    const m = /^([0-9a-f]+) I __imp__?(\S+?)(?:@\d+)?$/.exec(line);
    if (m) out.set(Number.parseInt(m[1]!, 16), m[2]!);
  }
  return out;
}

/** Transfers through an import slot from objdump (`call *0x…` / `jmp *0x…`): `site` → import name. */
export function objdumpSlotTransfers(objdump: string, file: string, slots: Map<number, string>, op: 'call' | 'jmp') {
  const text = execFileSync(objdump, ['-d', '--no-show-raw-insn', file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const out = new Map<number, string>();
  const pattern = new RegExp(`^\\s*([0-9a-f]+):\\s+${op}\\s+\\*0x([0-9a-f]+)\\s*$`);
  for (const line of text.split('\n')) {
    const m = pattern.exec(line);
    const name = m ? slots.get(Number.parseInt(m[2]!, 16)) : undefined;
    if (m && name !== undefined) out.set(Number.parseInt(m[1]!, 16), name);
  }
  return out;
}

/**
 * PE import address table slots from `llvm-readobj --coff-imports` (each import's slot is the IAT's
 * address plus its index times the pointer size): slot address → import name and library.
 */
export function coffImportSlots(file: string): Map<number, { name: string; library: string }> {
  const headers = execFileSync('llvm-readobj', ['--file-headers', file], { encoding: 'utf8' });
  const base = Number.parseInt(/ImageBase: 0x([0-9A-Fa-f]+)/.exec(headers)![1]!, 16);
  const pointer = /Magic: 0x20B/.test(headers) ? 8 : 4;
  const out = new Map<number, { name: string; library: string }>();
  const text = execFileSync('llvm-readobj', ['--coff-imports', file], { encoding: 'utf8', maxBuffer: 1 << 28 });
  for (const block of text.split(/^Import \{$/m).slice(1)) {
    const library = /Name: (\S+)/.exec(block)![1]!;
    let slot = base + Number.parseInt(/ImportAddressTableRVA: 0x([0-9A-Fa-f]+)/.exec(block)![1]!, 16);
    for (const m of block.matchAll(/^\s*Symbol: (\S*) \(\d+\)$/gm)) {
      out.set(slot, { name: m[1]!, library });
      slot += pointer;
    }
  }
  return out;
}

/** x86-64 transfers through a RIP-relative memory operand from objdump (`jmp *0x…(%rip)  # slot`): site → slot. */
export function objdumpRipTransfers(objdump: string, file: string, op: 'call' | 'jmp'): Map<number, number> {
  const text = execFileSync(objdump, ['-d', '--no-show-raw-insn', file], { encoding: 'utf8', maxBuffer: 1 << 30 });
  const out = new Map<number, number>();
  const pattern = new RegExp(`^\\s*([0-9a-f]+):\\s+${op}\\s+\\*-?0x[0-9a-f]+\\(%rip\\)\\s+#\\s*(?:0x)?([0-9a-f]+)`);
  for (const line of text.split('\n')) {
    const m = pattern.exec(line);
    if (m) out.set(Number.parseInt(m[1]!, 16), Number.parseInt(m[2]!, 16));
  }
  return out;
}
