import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { NATIVE_VIEW_FACETS, createNativeTools } from '@rea/native';
import { executeTool } from '@rea/provider-kit';
import type { AnyToolContract } from '@rea/provider-kit';
import { compileFixture, skipUnless, toolsMissing } from '@rea/test-helpers';
import type { EvidenceRecord } from '@rea/evidence';
import { isReaError, selectAnalysisView } from '@rea/evidence';
import {
  FIXTURES,
  objdumpCalls,
  openWithCapstone,
  removeTempDirs,
  toolContext,
  writeManyFunctions,
} from './support.js';

afterAll(removeTempDirs);

const tools = new Map<string, AnyToolContract>(createNativeTools().map((t) => [t.name, t]));

type Opened = Awaited<ReturnType<typeof openWithCapstone>>;

/** Results are read loosely here; each assertion states the exact shape it expects. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = Record<string, any>;

async function run(opened: Opened, name: string, input: object, ctx = toolContext(opened)) {
  const outcome = await executeTool(tools.get(name)!, input, ctx.context);
  if (outcome.kind !== 'evidence') throw new Error('expected evidence');
  return outcome.record as EvidenceRecord<Loose>;
}

async function refusal(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isReaError(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

skipUnless(toolsMissing('gcc', 'objdump', 'readelf'))('native tools on the embedded engine (x86-64 ELF)', () => {
  let opened: Opened;
  let file: string;
  beforeAll(async () => {
    file = compileFixture({
      source: join(FIXTURES, 'sample.c'),
      compiler: 'gcc',
      args: ['-O2', '-g', '-fno-inline'],
      output: 'sample-x64',
    });
    opened = await openWithCapstone(file);
  });
  afterAll(async () => opened?.session.close(new AbortController().signal));

  it('binary_overview describes the document, counts and entry procedure', async () => {
    const r = await run(opened, 'binary_overview', {});
    expect(r.operation).toBe('binary_overview');
    expect(r.provider.id).toBe('capstone');
    expect(r.normalized_result.document).toMatchObject({ format: 'elf', architecture: 'x86_64', bits: 64 });
    expect(r.normalized_result.procedure_count).toBeGreaterThan(15);
    // Every undefined dynamic symbol readelf lists, also those with no PLT stub (data, weak, GOT-only).
    const undefinedSymbols = execFileSync('readelf', ['--dyn-syms', '-W', file], { encoding: 'utf8' })
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter((f) => f[6] === 'UND' && f[7] !== undefined);
    expect(undefinedSymbols.length).toBeGreaterThan(5);
    expect(r.normalized_result.import_count).toBe(undefinedSymbols.length);
    expect(r.normalized_result.entry_procedure.name).toBe('_start');
    expect(r.normalized_result.segments.some((s: { name: string }) => s.name === '.text')).toBe(true);
  });

  it('procedure_info, procedure_assembly and the callers/callees of main agree with objdump', async () => {
    const info = await run(opened, 'procedure_info', { procedure: 'main' });
    expect(info.normalized_result.name).toBe('main');
    const asm = await run(opened, 'procedure_assembly', { procedure: info.normalized_result.address });
    expect(asm.normalized_result.instructions.length).toBe(info.normalized_result.instruction_count);
    expect(asm.normalized_result.text).toContain('call');
    const callees = await run(opened, 'procedure_callees', { procedure: 'main' });
    const truth = [...objdumpCalls('objdump', file)].filter((edge) => {
      const site = Number.parseInt(edge.split('>')[0]!.slice(2), 16);
      const start = Number.parseInt(info.normalized_result.address.slice(2), 16);
      const end = Number.parseInt(info.normalized_result.end.slice(2), 16);
      return site >= start && site < end;
    });
    const direct = callees.normalized_result.callees
      .filter((c: { kind: string }) => c.kind === 'call')
      .map((c: { site: string; procedure: string }) => `${c.site}>${c.procedure}`);
    expect(direct.sort()).toEqual(truth.sort());
    const callers = await run(opened, 'procedure_callers', { procedure: 'fib' });
    expect(callers.normalized_result.callers.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining(['fib', 'classify', 'helper_chain']),
    );
  });

  it('xrefs and list_strings connect a string to the code that uses it', async () => {
    const strings = await run(opened, 'search_strings', { query: 'password check' });
    expect(strings.normalized_result.items).toHaveLength(1);
    const x = await run(opened, 'xrefs', { address: strings.normalized_result.items[0].address });
    const main = (await run(opened, 'procedure_address', { name: 'main' })).normalized_result.address;
    expect(x.normalized_result.to.map((r: { from_procedure: string }) => r.from_procedure)).toContain(main);
    // An address outside the image that nothing refers to is a mistake, not an empty answer.
    await expect(run(opened, 'xrefs', { address: '0xffffffffff' })).rejects.toMatchObject({
      code: 'not_found',
      details: { reason: 'unmapped' },
    });
    const list = await run(opened, 'list_strings', { limit: 2 });
    expect(list.normalized_result.items).toHaveLength(2);
    expect(list.coverage.status).toBe('partial');
    expect(list.coverage.next_offset).toBe(2);
  });

  it('analyze_function builds the dossier; compare_functions accepts inline and retained records', async () => {
    const ctx = toolContext(opened);
    const main = await run(opened, 'analyze_function', { procedure: 'main' }, ctx);
    const d = main.normalized_result;
    expect(d.basic_blocks.length).toBeGreaterThan(1);
    expect(d.strings.map((s: { value: string }) => s.value)).toEqual(
      expect.arrayContaining([expect.stringContaining('password check')]),
    );
    expect(d.api.imports.map((a: { name: string }) => a.name)).toEqual(expect.arrayContaining(['printf', 'getenv']));
    expect(d.pseudocode).toBeNull();
    expect(d.unavailable).toEqual(expect.arrayContaining(['pseudocode', 'comments']));
    const apply = await run(opened, 'analyze_function', { procedure: 'apply' }, ctx);
    expect(apply.normalized_result.unresolved_calls.length).toBeGreaterThan(0);
    expect(apply.limitations.some((l) => l.kind === 'indirect-call' || l.kind === 'indirect-jump')).toBe(true);
    ctx.retain(main);
    const same = await run(
      opened,
      'compare_functions',
      { left: { kind: 'retained-evidence', evidence_id: main.evidence_id }, right: main },
      ctx,
    );
    expect(same.normalized_result.identical_instructions).toBe(true);
    expect(same.normalized_result.mnemonic_similarity).toBe(1);
    expect(same.evidence_links).toEqual([main.evidence_id, main.evidence_id]);
    const diff = await run(opened, 'compare_functions', { left: main, right: apply }, ctx);
    expect(diff.normalized_result.identical_instructions).toBe(false);
    expect(diff.normalized_result.callees.only_left).toEqual(expect.arrayContaining(['classify']));
    // Native views page the retained dossier by the documented facet paths.
    const blocks = selectAnalysisView(main, {
      view: 'page',
      collection: NATIVE_VIEW_FACETS.basic_blocks,
      offset: 0,
      limit: 1,
    });
    expect(blocks).toMatchObject({ view: 'page', items: [d.basic_blocks[0]] });
    const asmPage = selectAnalysisView(main, {
      view: 'page',
      collection: NATIVE_VIEW_FACETS.assembly,
      offset: 1,
      limit: 2,
    });
    expect(asmPage).toMatchObject({ items: d.assembly.instructions.slice(1, 3) });
    for (const path of Object.values(NATIVE_VIEW_FACETS)) {
      if (path === 'pseudocode' || path === 'comments') continue;
      expect(() => selectAnalysisView(main, { view: 'section', section: path.split('.')[0]! })).not.toThrow();
    }
    const missing = await refusal(
      run(
        opened,
        'compare_functions',
        { left: { kind: 'retained-evidence', evidence_id: `ev_${'a'.repeat(64)}` }, right: main },
        ctx,
      ),
    );
    expect(missing.code).toBe('not_found');
  });

  it('procedure_pseudo_code refuses with capability_unavailable naming Ghidra and Hopper', async () => {
    const error = await refusal(run(opened, 'procedure_pseudo_code', { procedure: 'main' }));
    expect(error.code).toBe('capability_unavailable');
    expect(error.remediation).toMatch(/ghidra/i);
    expect(error.remediation).toMatch(/hopper/i);
    expect(error.details).toMatchObject({ capability: 'pseudocode', provider_id: 'capstone' });
  });

  it('get_call_graph keeps indirect-call limitations on their node; trace_call_path finds main → fib', async () => {
    const graph = await run(opened, 'get_call_graph', { procedure: 'main', depth: 1 });
    const applyNode = graph.normalized_result.nodes.find((n: { name: string }) => n.name === 'apply');
    expect(applyNode.limitations.some((l: { kind: string }) => l.kind === 'depth-limit')).toBe(true);
    const deep = await run(opened, 'get_call_graph', { procedure: 'main', depth: 3 });
    const applyDeep = deep.normalized_result.nodes.find((n: { name: string }) => n.name === 'apply');
    expect(applyDeep.limitations.some((l: { kind: string }) => l.kind.startsWith('indirect'))).toBe(true);
    const trace = await run(opened, 'trace_call_path', { from: 'main', to: 'fib' });
    expect(trace.normalized_result.paths.length).toBeGreaterThan(0);
    const fib = (await run(opened, 'procedure_address', { name: 'fib' })).normalized_result.address;
    expect(trace.normalized_result.paths.every((p: string[]) => p[p.length - 1] === fib)).toBe(true);
    expect(trace.normalized_result.truncated).toBe(trace.normalized_result.residual_unknowns.length > 0);
    expect(trace.normalized_result.residual_unknowns.some((r: { kind: string }) => r.kind.startsWith('indirect'))).toBe(
      true,
    );
  });

  it('navigation: goto_address moves the cursor; current_procedure and inspect_address_context follow it', async () => {
    const ctx = toolContext(opened);
    const fib = (await run(opened, 'procedure_address', { name: 'fib' }, ctx)).normalized_result.address as string;
    const inside = `0x${(Number.parseInt(fib.slice(2), 16) + 4).toString(16)}`;
    await run(opened, 'goto_address', { address: inside }, ctx);
    expect((await run(opened, 'current_address', {}, ctx)).normalized_result.address).toBe(inside);
    expect((await run(opened, 'current_procedure', {}, ctx)).normalized_result.procedure.name).toBe('fib');
    const nav = await run(opened, 'get_navigation_context', {}, ctx);
    expect(nav.normalized_result).toMatchObject({ mode: 'current_selection', address: inside });
    const inspect = await run(opened, 'inspect_address_context', { address: fib }, ctx);
    expect(inspect.normalized_result.name).toEqual({ status: 'ok', value: 'fib' });
    expect(inspect.normalized_result.comment.status).toBe('unavailable');
    const bad = await refusal(run(opened, 'goto_address', { address: '0xffffffffff' }, ctx));
    expect(bad.code).toBe('not_found');
    expect((await run(opened, 'current_address', {}, ctx)).normalized_result.address).toBe(inside);
  });

  it('refuses unknown procedures and malformed addresses with typed errors', async () => {
    expect((await refusal(run(opened, 'procedure_info', { procedure: 'no_such_function' }))).code).toBe('not_found');
    expect((await refusal(run(opened, 'xrefs', { address: '0X10' }))).code).toBe('invalid_request');
  });

  it('every tool is unavailable with a remediation when no target is open', async () => {
    const ctx = toolContext(opened).context;
    const none = { ...ctx, session: { target: null, binding: null, run_id: null } };
    for (const tool of tools.values()) {
      if (tool.name === 'compare_functions') continue;
      const a = tool.availability(none);
      expect(a.available).toBe(false);
      if (!a.available) expect(a.remediation).toMatch(/open_binary/);
    }
    const error = await refusal(executeTool(tools.get('list_procedures')!, {}, none));
    expect(error.code).toBe('capability_unavailable');
  });
});

/**
 * The functions a PE imports, per `llvm-readobj --coff-imports`: the `Symbol:` lines of its `Import`
 * blocks (one per imported library) and of its `DelayImport` blocks (delay-load imports).
 */
function readobjImports(file: string): string[] {
  const text = execFileSync('llvm-readobj', ['--coff-imports', file], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const out: string[] = [];
  let block = '';
  for (const line of text.split('\n')) {
    if (/^\S/.test(line)) block = line;
    const m = /^\s+Symbol: (.*)$/.exec(line);
    if ((block === 'Import {' || block === 'DelayImport {') && m) out.push(m[1]!);
  }
  return out;
}

/** A header field of a PE (`ImageBase`, `AddressOfEntryPoint`) per `llvm-readobj --file-headers`. */
function readobjHeader(file: string, field: string): number {
  const text = execFileSync('llvm-readobj', ['--file-headers', file], { encoding: 'utf8' });
  const m = new RegExp(`^\\s+${field}: (0x[0-9A-Fa-f]+)$`, 'm').exec(text);
  if (!m) throw new Error(`llvm-readobj printed no ${field} for ${file}`);
  return Number.parseInt(m[1]!, 16);
}

skipUnless(toolsMissing('x86_64-w64-mingw32-gcc', 'llvm-readobj', 'objdump'))(
  'binary_overview on the embedded engine (x86-64 PE)',
  () => {
    let opened: Opened;
    let file: string;
    beforeAll(async () => {
      file = compileFixture({
        source: join(FIXTURES, 'sample.c'),
        compiler: 'x86_64-w64-mingw32-gcc',
        args: ['-O2', '-fno-inline'],
        output: 'sample.exe',
      });
      opened = await openWithCapstone(file);
    });
    afterAll(async () => opened?.session.close(new AbortController().signal));

    it('should count every import of the import directory, also those called through their slot with no thunk', async () => {
      const imports = readobjImports(file);
      expect(imports.length).toBeGreaterThan(0);
      const r = await run(opened, 'binary_overview', {});
      expect(r.normalized_result.document.format).toBe('pe');
      expect(r.normalized_result.import_count).toBe(imports.length);
    });

    it('should list an import that main calls through its `jmp [__imp_x]` thunk among its API calls', async () => {
      // objdump names the thunk after its import and shows the slot it jumps through.
      const text = execFileSync('objdump', ['-d', file], { encoding: 'utf8', maxBuffer: 1 << 26 });
      const thunk =
        /^0*([0-9a-f]+) <getenv>:\n\s+[0-9a-f]+:\s+ff 25 [0-9a-f ]+\s+jmp\s+\*0x[0-9a-f]+\(%rip\)\s+# [0-9a-f]+ <__imp_getenv>/m.exec(
          text,
        );
      expect(thunk).not.toBeNull();
      const address = `0x${thunk![1]}`;
      const info = await run(opened, 'procedure_info', { procedure: address });
      expect(info.normalized_result).toMatchObject({ kind: 'thunk', name: 'getenv', library: 'msvcrt.dll' });
      const main = await run(opened, 'analyze_function', { procedure: 'main' });
      const imports = (main.normalized_result.api.imports as Array<{ name: string; address: string }>).map(
        (i) => `${i.name}@${i.address}`,
      );
      expect(imports).toContain(`getenv@${address}`);
      // A function of the binary itself (mingw's own printf, which main also calls) is not an import.
      const printf = main.normalized_result.callees.find((c: Loose) => c.name === 'printf');
      expect(printf).toBeDefined();
      expect((await run(opened, 'procedure_info', { procedure: printf.procedure })).normalized_result.kind).toBe(
        'function',
      );
      expect(imports.some((i) => i.startsWith('printf@'))).toBe(false);
    });

    it('should place the entry point at the image base plus AddressOfEntryPoint', async () => {
      const entry = readobjHeader(file, 'ImageBase') + readobjHeader(file, 'AddressOfEntryPoint');
      const expected = `0x${entry.toString(16)}`;
      const r = await run(opened, 'binary_overview', {});
      expect(r.normalized_result.document.entry).toBe(expected);
      expect(r.normalized_result.entry_procedure.address).toBe(expected);
    });
  },
);

skipUnless(toolsMissing('gcc'))('read_function_instructions and list_procedures paging (1,200 functions)', () => {
  it('pages procedures and instructions without gaps or repeats', async () => {
    const file = compileFixture({
      source: writeManyFunctions(1200),
      compiler: 'gcc',
      args: ['-O1', '-fno-inline'],
      output: 'many',
    });
    const opened = await openWithCapstone(file);
    try {
      const seen: string[] = [];
      let offset: number | null = 0;
      let pages = 0;
      while (offset !== null) {
        const page = await run(opened, 'list_procedures', { offset, limit: 250 });
        seen.push(...page.normalized_result.items.map((p: { address: string }) => p.address));
        offset = page.normalized_result.next_offset;
        expect(page.coverage.status).toBe(offset === null ? 'complete' : 'partial');
        pages += 1;
      }
      expect(pages).toBeGreaterThanOrEqual(5);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBeGreaterThanOrEqual(1200);
      const listed = await run(opened, 'search_procedures', { query: 'f1199' });
      expect(listed.normalized_result.items[0].name).toBe('f1199');
      const asm = await run(opened, 'procedure_assembly', { procedure: 'main' });
      const all = asm.normalized_result.instructions;
      const first = await run(opened, 'read_function_instructions', { procedure: 'main', offset: 0, limit: 2 });
      const rest = await run(opened, 'read_function_instructions', { procedure: 'main', offset: 2, limit: 1000 });
      expect([...first.normalized_result.page.items, ...rest.normalized_result.page.items]).toEqual(all);
      expect(first.normalized_result.page.next_offset).toBe(2);
      expect(rest.normalized_result.page.next_offset).toBeNull();
    } finally {
      await opened.session.close(new AbortController().signal);
    }
  });
});

describe('tool catalog', () => {
  it('exports every native tool named by the contract', () => {
    expect([...tools.keys()]).toEqual([
      'address_name',
      'analyze_function',
      'binary_overview',
      'compare_functions',
      'current_address',
      'current_document',
      'current_procedure',
      'get_call_graph',
      'get_navigation_context',
      'goto_address',
      'inspect_address_context',
      'list_names',
      'list_procedures',
      'list_segments',
      'list_strings',
      'procedure_address',
      'procedure_assembly',
      'procedure_callees',
      'procedure_callers',
      'procedure_info',
      'procedure_pseudo_code',
      'procedure_references',
      'read_function_instructions',
      'resolve_containing_procedure',
      'search_procedures',
      'search_strings',
      'trace_call_path',
      'xrefs',
    ]);
  });
});
