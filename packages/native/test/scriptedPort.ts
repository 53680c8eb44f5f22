// A scripted stand-in for a deep engine's port (not an engine): a fixed three-procedure program with
// configurable capabilities, used to exercise the tool contracts' refusal and limitation paths.
import { createNavigationState, paginate } from '@rea/native';
import type { NativeCapability, NativePort, ProcedureInfo } from '@rea/native';
import type { PortPeer, ToolContext } from '@rea/provider-kit';
import { createAnalysisProfile } from '@rea/evidence';
import { quietToolContext } from '@rea/test-helpers';

const PROCS: ProcedureInfo[] = [
  {
    address: '0x1000',
    name: 'main',
    size: 16,
    kind: 'function',
    source: 'symbol',
    end: '0x1010',
    instruction_count: 3,
    basic_block_count: 1,
    caller_count: 0,
    callee_count: 2,
    library: null,
  },
  {
    address: '0x1010',
    name: 'work',
    size: 16,
    kind: 'function',
    source: 'symbol',
    end: '0x1020',
    instruction_count: 2,
    basic_block_count: 1,
    caller_count: 1,
    callee_count: 1,
    library: null,
  },
  {
    address: '0x1020',
    name: 'leaf',
    size: 8,
    kind: 'function',
    source: 'symbol',
    end: '0x1028',
    instruction_count: 1,
    basic_block_count: 1,
    caller_count: 2,
    callee_count: 0,
    library: null,
  },
];

/** A scripted port; `pseudocode` and `comments` are present only when declared. */
export function scriptedPort(capabilities: NativeCapability[]): NativePort {
  const byAddress = new Map(PROCS.map((p) => [p.address, p]));
  const byName = new Map(PROCS.map((p) => [p.name, p.address]));
  const port: NativePort = {
    kind: 'native-port',
    capabilities: new Set(capabilities),
    document: async () => ({
      name: 'scripted',
      format: 'elf',
      architecture: 'x86_64',
      bits: 64,
      endianness: 'little',
      entry: '0x1000',
      image_base: '0x0',
    }),
    procedures: async (page) =>
      paginate(
        PROCS.map(
          ({
            end: _e,
            instruction_count: _i,
            basic_block_count: _b,
            caller_count: _c,
            callee_count: _d,
            library: _l,
            ...s
          }) => s,
        ),
        page,
        (p) => p.name,
      ),
    procedure: async (a) => byAddress.get(a) ?? null,
    containingProcedure: async (a) => {
      const p = PROCS.find((x) => parseInt(a, 16) >= parseInt(x.address, 16) && parseInt(a, 16) < parseInt(x.end, 16));
      return p ? { address: p.address, name: p.name, size: p.size, kind: p.kind, source: p.source } : null;
    },
    instructions: async (_p, page) =>
      paginate([{ address: '0x1000', size: 5, bytes: 'e80b000000', mnemonic: 'call', operands: '0x1010' }], page),
    controlFlow: async (p) => ({
      blocks: [{ start: p, end: byAddress.get(p)!.end, instruction_count: 1 }],
      edges: [],
      unresolved: [],
    }),
    callers: async (p) =>
      p === '0x1020'
        ? [{ site: '0x1014', procedure: '0x1010', name: 'work', kind: 'call' as const }]
        : p === '0x1010'
          ? [{ site: '0x1000', procedure: '0x1000', name: 'main', kind: 'call' as const }]
          : [],
    callees: async (p) =>
      p === '0x1000'
        ? {
            calls: [{ site: '0x1000', procedure: '0x1010', name: 'work', kind: 'call' as const }],
            unresolved: [{ site: '0x1008', kind: 'indirect-call' as const, instruction: 'call rax' }],
          }
        : p === '0x1010'
          ? { calls: [{ site: '0x1014', procedure: '0x1020', name: 'leaf', kind: 'call' as const }], unresolved: [] }
          : { calls: [], unresolved: [] },
    references: async () => ({ to: [], from: [] }),
    procedureReferences: async () => [],
    strings: async (page) => paginate([], page),
    stringAt: async () => null,
    names: async (page) =>
      paginate(
        PROCS.map((p) => ({ address: p.address, name: p.name, kind: 'function' as const })),
        page,
        (n) => n.name,
      ),
    nameAt: async (a) => byAddress.get(a)?.name ?? null,
    addressOf: async (n) => byName.get(n) ?? null,
    segments: async () => [],
    isMapped: async (a) => parseInt(a, 16) >= 0x1000 && parseInt(a, 16) < 0x1028,
    navigation: createNavigationState('scripted', '0x1000'),
  };
  if (capabilities.includes('pseudocode'))
    port.pseudocode = async () => ({ language: 'c', text: 'int main(void) { return work(); }' });
  if (capabilities.includes('high_pcode'))
    port.highPcode = async (_procedure, page) =>
      paginate(
        Array.from({ length: 4100 }, (_, i) => ({
          address: '0x1000',
          mnemonic: i === 4099 ? 'RETURN' : 'COPY',
          output: i === 4099 ? null : `unique:0x${(i * 8).toString(16)}:8`,
          inputs: ['const:0x0:8'],
        })),
        page,
      );
  if (capabilities.includes('comments'))
    port.comments = async (a) => ({ comment: a === '0x1000' ? 'entry' : null, inline_comment: null });
  return port;
}

/**
 * The native-port providers of the stand-in registry, as a host lists them in the binding: the
 * scripted one and two decompiling engines that declare pseudocode.
 */
export const STAND_IN_PEERS: readonly PortPeer[] = [
  { id: 'ghidra', name: 'Ghidra (stand-in declaration)', capabilities: ['procedures', 'pseudocode', 'comments'] },
  { id: 'hopper', name: 'Hopper (stand-in declaration)', capabilities: ['procedures', 'pseudocode'] },
  { id: 'scripted', name: 'Scripted stand-in', capabilities: ['procedures'] },
];

/** A context binding the scripted port, as a host would after open_binary with the stand-in registry. */
export function contextFor(port: NativePort | null, peers: readonly PortPeer[] = STAND_IN_PEERS): ToolContext {
  return quietToolContext({
    session: {
      target: port ? { path: '/scripted', format: 'elf', sha256: 'a'.repeat(64), size: 40 } : null,
      binding: port
        ? {
            provider: { id: 'scripted', name: 'Scripted stand-in', version: '1' },
            port: 'native',
            peers,
            selection_source: 'argument',
            analysis_profile: createAnalysisProfile({ name: 'scripted', version: '1', settings: {} }),
            session: port,
          }
        : null,
      run_id: port ? 'run-1' : null,
    },
  });
}
