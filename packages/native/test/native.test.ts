import { describe, expect, it } from '@jest/globals';
import { NATIVE_CAPABILITIES, createNativeTools, formatAddress, parseAddress } from '@rea/native';
import { executeTool } from '@rea/provider-kit';
import type { AnyToolContract } from '@rea/provider-kit';
import { ReaError, isReaError } from '@rea/evidence';
import { contextFor, scriptedPort } from './scriptedPort.js';

const tools = new Map<string, AnyToolContract>(createNativeTools().map((t) => [t.name, t]));
const ALL = NATIVE_CAPABILITIES.filter(
  (c) => c !== 'pseudocode' && c !== 'high_pcode' && c !== 'comments' && c !== 'bookmarks',
);

async function outcome(name: string, input: object, context = contextFor(scriptedPort(ALL))) {
  const result = await executeTool(tools.get(name)!, input, context);
  if (result.kind !== 'evidence') throw new Error('expected evidence');
  return result.record as {
    normalized_result: Record<string, unknown>;
    parameters: Record<string, unknown>;
    locations: Array<{ kind: string; value: string }>;
    limitations: Array<{ kind: string; scope?: string }>;
    coverage: { status: string };
  };
}

async function refusal(name: string, input: object, context = contextFor(scriptedPort(ALL))) {
  try {
    await executeTool(tools.get(name)!, input, context);
  } catch (error) {
    if (isReaError(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('address format', () => {
  it('formats the default space as lowercase 0x hex and other spaces percent-encoded', () => {
    expect(formatAddress(0x401000)).toBe('0x401000');
    expect(formatAddress(255, 'ram')).toBe('ram:0xff');
    expect(formatAddress(16, 'overlay space')).toBe('overlay%20space:0x10');
    expect(parseAddress('overlay%20space:0x10')).toEqual({ space: 'overlay space', offset: 16 });
    expect(parseAddress('0xdeadbeef')).toEqual({ space: null, offset: 0xdeadbeef });
  });

  it('refuses non-canonical and out-of-range addresses', () => {
    for (const bad of ['0X10', '0x1A', '4096', '', '0x', `0x${'f'.repeat(20)}`]) {
      expect(() => parseAddress(bad)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    }
    expect(() => formatAddress(-1)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});

describe('native tools on a scripted stand-in port', () => {
  it('refuse pseudocode with capability_unavailable naming Ghidra and Hopper when undeclared', async () => {
    const error = await refusal('procedure_pseudo_code', { procedure: 'main' });
    expect(error.code).toBe('capability_unavailable');
    expect(error.details).toMatchObject({
      capability: 'pseudocode',
      provider_id: 'scripted',
      alternatives: ['ghidra', 'hopper'],
    });
  });

  it('return pseudocode, and carry it into analyze_function, when the port declares it', async () => {
    const context = contextFor(scriptedPort([...ALL, 'pseudocode', 'comments']));
    const r = await outcome('procedure_pseudo_code', { procedure: 'main' }, context);
    expect(r.normalized_result).toMatchObject({ language: 'c', text: expect.stringContaining('work()') });
    const d = await outcome('analyze_function', { procedure: 'main' }, context);
    expect(d.normalized_result['pseudocode']).toContain('work()');
    expect(d.normalized_result['comments']).toEqual([{ address: '0x1000', comment: 'entry', inline_comment: null }]);
  });

  it('refuse each capability-specific tool when its capability is missing', async () => {
    const cases: Array<[string, object, string]> = [
      ['list_strings', {}, 'strings'],
      ['list_segments', {}, 'segments'],
      ['procedure_callees', { procedure: 'main' }, 'callers_callees'],
      ['xrefs', { address: '0x1000' }, 'references'],
      ['read_function_instructions', { procedure: 'main' }, 'instructions'],
      ['current_address', {}, 'navigation'],
    ];
    for (const [name, input, capability] of cases) {
      const context = contextFor(scriptedPort(ALL.filter((c) => c !== capability)));
      const error = await refusal(name, input, context);
      expect({ name, code: error.code, capability: error.details?.['capability'] }).toEqual({
        name,
        code: 'capability_unavailable',
        capability,
      });
    }
  });

  it('page listings through offset and limit, partial with next_offset until the last page', async () => {
    const first = await outcome('list_procedures', { limit: 2 });
    expect(first.normalized_result).toEqual({
      items: [expect.objectContaining({ name: 'main' }), expect.objectContaining({ name: 'work' })],
      total: 3,
      offset: 0,
      next_offset: 2,
    });
    expect(first.coverage).toEqual({ status: 'partial', reasons: [expect.any(String)], next_offset: 2 });
    const last = await outcome('list_procedures', { offset: 2, limit: 2 });
    expect(last.normalized_result).toMatchObject({ items: [{ name: 'leaf' }], total: 3, offset: 2, next_offset: null });
    expect(last.coverage).toEqual({ status: 'complete', reasons: [], next_offset: null });
  });

  it('binary_overview takes import_count from the port when it counts imports, else counts import procedures', async () => {
    // The scripted program has no procedure of kind "import": a PE whose imports are all reached through
    // import-address-table slots looks like this to a procedure listing.
    const fallback = await outcome('binary_overview', {});
    expect(fallback.normalized_result).toMatchObject({ procedure_count: 3, import_count: 0 });
    const port = scriptedPort(ALL);
    port.importCount = async () => 5;
    const counted = await outcome('binary_overview', {}, contextFor(port));
    expect(counted.normalized_result).toMatchObject({ procedure_count: 3, import_count: 5 });
  });

  it('pass a query through to the port, case-insensitively, and record the parsed input', async () => {
    const found = await outcome('search_procedures', { query: 'OR' });
    expect(found.normalized_result).toMatchObject({ items: [{ name: 'work' }], total: 1, next_offset: null });
    expect(found.parameters).toEqual({ query: 'OR', offset: 0, limit: 100 });
    const names = await outcome('list_names', { query: 'ea' });
    expect(names.normalized_result).toMatchObject({ items: [{ name: 'leaf', address: '0x1020' }], total: 1 });
    const all = await outcome('list_names', {});
    expect(all.normalized_result).toMatchObject({ total: 3, offset: 0, next_offset: null });
    expect(all.parameters).toEqual({ offset: 0, limit: 100 });
  });

  it('resolve a procedure by entry address or exact name and record at its entry', async () => {
    const byName = await outcome('procedure_callers', { procedure: 'work' });
    const byAddress = await outcome('procedure_callers', { procedure: '0x1010' });
    expect(byName.normalized_result).toEqual(byAddress.normalized_result);
    expect(byName.normalized_result).toMatchObject({
      procedure: '0x1010',
      name: 'work',
      callers: [{ site: '0x1000' }],
    });
    expect(byName.locations).toEqual([{ kind: 'address', value: '0x1010' }]);
    const page = await outcome('read_function_instructions', { procedure: 'main', limit: 1 });
    expect(page.parameters).toEqual({ procedure: 'main', offset: 0, limit: 1 });
    expect(page.locations).toEqual([{ kind: 'address', value: '0x1000' }]);
    const missing = await refusal('procedure_info', { procedure: 'nowhere' });
    expect({ code: missing.code, details: missing.details }).toEqual({
      code: 'not_found',
      details: { name: 'nowhere' },
    });
    expect((await refusal('procedure_info', { procedure: '0x1004' })).details).toEqual({ address: '0x1004' });
  });

  it('check an address argument before reading and record at that address', async () => {
    const inside = await outcome('resolve_containing_procedure', { address: '0x1014' });
    expect(inside.normalized_result).toMatchObject({ address: '0x1014', procedure: { name: 'work' } });
    expect(inside.locations).toEqual([{ kind: 'address', value: '0x1014' }]);
    const named = await outcome('address_name', { address: '0x1020' });
    expect(named.normalized_result).toEqual({ address: '0x1020', name: 'leaf' });
    expect(named.locations).toEqual([{ kind: 'address', value: '0x1020' }]);
    for (const name of ['xrefs', 'address_name', 'resolve_containing_procedure', 'goto_address']) {
      expect({ name, code: (await refusal(name, { address: `0x${'f'.repeat(20)}` })).code }).toEqual({
        name,
        code: 'invalid_request',
      });
    }
  });

  it('list_segments pages the segment map the port returns whole', async () => {
    const port = scriptedPort(ALL);
    const segment = (name: string, start: number) => ({
      name,
      start: `0x${start.toString(16)}`,
      end: `0x${(start + 0x100).toString(16)}`,
      size: 0x100,
      file_offset: null,
      readable: true,
      writable: false,
      executable: name === '.text',
    });
    port.segments = async () => [segment('.text', 0x1000), segment('.rodata', 0x2000), segment('.data', 0x3000)];
    const page = await outcome('list_segments', { offset: 1, limit: 1 }, contextFor(port));
    expect(page.normalized_result).toEqual({
      items: [segment('.rodata', 0x2000)],
      total: 3,
      offset: 1,
      next_offset: 2,
    });
    expect(page.coverage).toMatchObject({ status: 'partial', next_offset: 2 });
  });

  it('analyze_function lists facets the provider lacks as unavailable, with limitations', async () => {
    const context = contextFor(scriptedPort(ALL.filter((c) => c !== 'basic_blocks')));
    const d = await outcome('analyze_function', { procedure: 'main' }, context);
    expect(d.normalized_result['basic_blocks']).toBeNull();
    expect(d.normalized_result['unavailable']).toEqual(
      expect.arrayContaining(['basic_blocks', 'pseudocode', 'high_pcode']),
    );
    expect(d.normalized_result['high_pcode']).toBeNull();
    expect(d.limitations).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'capability-unavailable', scope: 'high_pcode' })]),
    );
  });

  it('analyze_function carries at most 4096 high p-code ops, marked truncated past that', async () => {
    const context = contextFor(scriptedPort([...ALL, 'pseudocode', 'high_pcode']));
    const d = await outcome('analyze_function', { procedure: 'main' }, context);
    const high = d.normalized_result['high_pcode'] as { ops: Array<{ mnemonic: string }>; total: number };
    expect(high.total).toBe(4100);
    expect(high.ops).toHaveLength(4096);
    expect(high.ops[0]).toEqual({
      address: '0x1000',
      mnemonic: 'COPY',
      output: 'unique:0x0:8',
      inputs: ['const:0x0:8'],
    });
    expect(d.normalized_result['unavailable']).not.toContain('high_pcode');
    expect(d.limitations).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'truncated', scope: 'high_pcode' })]),
    );
    expect(d.coverage.status).toBe('partial');
  });

  it('get_call_graph keeps an unresolved call on its node, never an empty list presented as complete', async () => {
    const g = await outcome('get_call_graph', { procedure: 'main', depth: 5 });
    const nodes = g.normalized_result['nodes'] as Array<{ name: string; limitations: Array<{ kind: string }> }>;
    expect(nodes.map((n) => n.name)).toEqual(['main', 'work', 'leaf']);
    expect(nodes[0]!.limitations.map((l) => l.kind)).toEqual(['indirect-call']);
    expect(nodes[2]!.limitations).toEqual([]);
    expect(g.coverage.status).toBe('partial');
  });

  it('keeps a provider-limited read on its node in get_call_graph and in trace_call_path residual_unknowns', async () => {
    const port = scriptedPort(ALL);
    const callees = port.callees.bind(port);
    port.callees = async (p, signal) => {
      if (p === '0x1010')
        throw new ReaError('provider_timeout', 'The engine did not answer in time.', {
          details: { provider_id: 'scripted' },
        });
      return callees(p, signal);
    };
    const context = contextFor(port);
    const g = await outcome('get_call_graph', { procedure: 'main', depth: 5 }, context);
    const nodes = g.normalized_result['nodes'] as Array<{
      name: string;
      calls?: unknown;
      limitations: Array<{ kind: string }>;
    }>;
    expect(nodes.map((n) => n.name)).toEqual(['main', 'work']);
    expect(nodes[1]!.limitations.map((l) => l.kind)).toEqual(['provider-limited']);
    expect(g.coverage.status).toBe('partial');
    const t = await outcome('trace_call_path', { from: 'main', to: 'leaf' }, context);
    expect(t.normalized_result['paths']).toEqual([]);
    expect(t.normalized_result['truncated']).toBe(true);
    expect(t.normalized_result['residual_unknowns']).toEqual(
      expect.arrayContaining([expect.objectContaining({ node: '0x1010', kind: 'provider-limited' })]),
    );
  });

  it('trace_call_path reports limited expansions in residual_unknowns and sets truncated', async () => {
    const t = await outcome('trace_call_path', { from: 'main', to: 'leaf' });
    expect(t.normalized_result['paths']).toEqual([['0x1000', '0x1010', '0x1020']]);
    expect(t.normalized_result['truncated']).toBe(true);
    expect(t.normalized_result['residual_unknowns']).toEqual([
      expect.objectContaining({ node: '0x1000', kind: 'indirect-call' }),
    ]);
    const short = await outcome('trace_call_path', { from: 'main', to: 'leaf', max_depth: 1 });
    expect(short.normalized_result['paths']).toEqual([]);
    expect(short.normalized_result['residual_unknowns']).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'depth-limit' })]),
    );
  });

  it('get_navigation_context supports explicit_document mode and reports procedure: null outside procedures', async () => {
    const port = scriptedPort(ALL);
    const context = contextFor(port);
    const explicit = await outcome('get_navigation_context', { document: 'scripted' }, context);
    expect(explicit.normalized_result).toMatchObject({
      mode: 'explicit_document',
      address: '0x1000',
      procedure: { name: 'main' },
    });
    port.navigation!.goto('0x2000');
    const outside = await outcome('get_navigation_context', {}, context);
    expect(outside.normalized_result).toMatchObject({ mode: 'current_selection', procedure: null });
    const other = await refusal('get_navigation_context', { document: 'other' }, context);
    expect(other.code).toBe('not_found');
    expect(other.remediation).toBe('The open document is scripted: name it, or leave document out.');
  });

  it('honours cancellation: an aborted request is cancelled and records nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const context = { ...contextFor(scriptedPort(ALL)), signal: controller.signal };
    for (const name of ['list_procedures', 'analyze_function', 'get_call_graph', 'trace_call_path']) {
      const input =
        name === 'list_procedures'
          ? {}
          : name === 'trace_call_path'
            ? { from: 'main', to: 'leaf' }
            : { procedure: 'main' };
      expect((await refusal(name, input, context)).code).toBe('cancelled');
    }
  });

  it('a cancellation during a call-graph expansion ends the request instead of becoming a node limitation', async () => {
    const controller = new AbortController();
    const port = scriptedPort(ALL);
    const callees = port.callees.bind(port);
    port.callees = async (p, signal) => {
      if (p === '0x1010') {
        controller.abort();
        throw new ReaError('cancelled', 'Cancelled while reading callees.');
      }
      return callees(p, signal);
    };
    const context = { ...contextFor(port), signal: controller.signal };
    expect((await refusal('get_call_graph', { procedure: 'main', depth: 5 }, context)).code).toBe('cancelled');
  });

  it('compare_functions needs a ledger for retained references', async () => {
    const error = await refusal('compare_functions', {
      left: { kind: 'retained-evidence', evidence_id: `ev_${'1'.repeat(64)}` },
      right: { kind: 'retained-evidence', evidence_id: `ev_${'2'.repeat(64)}` },
    });
    expect(error.code).toBe('capability_unavailable');
  });

  it('every tool but compare_functions is unavailable without a target, naming open_binary', () => {
    const none = contextFor(null);
    for (const tool of tools.values()) {
      const a = tool.availability(none);
      if (tool.name === 'compare_functions') expect(a.available).toBe(true);
      else
        expect(a).toEqual({
          available: false,
          reason: 'no native target is open',
          remediation: expect.stringContaining('open_binary'),
        });
    }
  });
});
