// Deep providers declare the port they implement; selection compares only the providers of the port a
// caller needs, so a ready provider of another port (a process debugger, say) never makes `auto`
// ambiguous for open_binary's native analysis. Remedies name alternatives from the declared
// capabilities of the same port.
import { describe, expect, it } from '@jest/globals';
import { createAnalysisProfile, isReaError } from '@rea/evidence';
import {
  NATIVE_PORT,
  alternativesFor,
  createProviderBinding,
  createProviderRegistry,
  describeCandidates,
  portSession,
  selectProvider,
  validateProvider,
} from '@rea/provider-kit';
import type { DeepProvider, DeepSession, ProbeResult, Provider } from '@rea/provider-kit';

function deep(id: string, port: string, capabilities: string[], embedded = false): DeepProvider {
  return {
    id,
    name: id.toUpperCase(),
    version: '1.0.0',
    kind: 'deep',
    port,
    capabilities,
    ...(embedded ? { embedded: true } : {}),
    probe: async () => ({ status: 'ready' }),
    tools: () => [],
    open: async () => {
      throw new Error('not opened here');
    },
  };
}

const capstone = deep('capstone', 'native', ['procedures'], true);
const ghidra = deep('ghidra', 'native', ['procedures', 'pseudocode']);
const lldb = deep('lldb', 'process', ['breakpoints', 'pseudocode']);
const ready: ProbeResult = { status: 'ready', version: '1' };
const allReady = new Map<string, ProbeResult>([
  ['capstone', ready],
  ['ghidra', ready],
  ['lldb', ready],
]);

function failure(run: () => unknown): { code: string; details: Record<string, unknown> } {
  try {
    run();
  } catch (error) {
    expect(isReaError(error)).toBe(true);
    return error as { code: string; details: Record<string, unknown> };
  }
  throw new Error('expected a failure');
}

describe('issue 16: port-scoped selection', () => {
  it('should not let a ready provider of another port make auto ambiguous', () => {
    const registry = createProviderRegistry([capstone, ghidra, lldb]);
    const selection = selectProvider({ registry, choice: { kind: 'auto' }, source: 'argument', probes: allReady });
    expect(selection.provider.id).toBe('ghidra');
    expect(selection.candidates.map((c) => c.id)).toEqual(['capstone', 'ghidra']);
  });

  it('should fall back to the embedded native engine when the only other ready engine serves another port', () => {
    const registry = createProviderRegistry([capstone, lldb]);
    const selection = selectProvider({ registry, choice: { kind: 'auto' }, source: 'argument', probes: allReady });
    expect(selection).toMatchObject({ provider: { id: 'capstone' }, source: 'auto' });
  });

  it('should still call two ready native engines ambiguous', () => {
    const hopper = deep('hopper', 'native', ['pseudocode']);
    const registry = createProviderRegistry([capstone, ghidra, hopper, lldb]);
    const probes = new Map([...allReady, ['hopper', ready]]);
    const error = failure(() => selectProvider({ registry, choice: { kind: 'auto' }, source: 'argument', probes }));
    expect(error).toMatchObject({ code: 'provider_selection', details: { requested: 'auto', reason: 'ambiguous' } });
    expect((error.details['candidates'] as Array<{ id: string }>).map((c) => c.id)).toEqual([
      'capstone',
      'ghidra',
      'hopper',
    ]);
  });

  it('should select within the port asked for, and refuse a concrete id of another port as unknown', () => {
    const registry = createProviderRegistry([capstone, ghidra, lldb]);
    const process = selectProvider({
      registry,
      choice: { kind: 'auto' },
      source: 'argument',
      probes: allReady,
      port: 'process',
    });
    expect(process.provider.id).toBe('lldb');
    const error = failure(() =>
      selectProvider({ registry, choice: { kind: 'concrete', id: 'lldb' }, source: 'argument', probes: allReady }),
    );
    expect(error).toMatchObject({ code: 'provider_selection', details: { requested: 'lldb', reason: 'unknown' } });
    expect(describeCandidates(registry, allReady, null, 'process').map((c) => c.id)).toEqual(['lldb']);
  });

  it('should refuse a deep provider that declares no port', () => {
    const { port: _port, ...portless } = ghidra;
    const error = failure(() => validateProvider(portless as unknown as Provider));
    expect(error).toMatchObject({
      code: 'invalid_request',
      details: { reason: 'invalid-provider', provider_id: 'ghidra', problem: expect.stringContaining('port') },
    });
  });

  it('should bind the port and list its providers, so remedies come from declared capabilities', () => {
    const registry = createProviderRegistry([capstone, ghidra, lldb]);
    const session: DeepSession = {
      provider: { id: 'capstone', name: 'CAPSTONE', version: '5' },
      analysis_profile: createAnalysisProfile({ name: 'capstone', version: '1', settings: {} }),
      session: { engine: 'state' },
      close: async () => undefined,
    };
    const binding = createProviderBinding(capstone, session, 'auto', registry);
    expect(binding.port).toBe(NATIVE_PORT);
    expect(binding.peers?.map((peer) => peer.id)).toEqual(['capstone', 'ghidra']);
    // lldb declares pseudocode too, but serves another port: it is no alternative for native analysis.
    expect(alternativesFor(binding, 'pseudocode')).toEqual(['ghidra']);
    expect(alternativesFor(binding, 'procedures')).toEqual(['ghidra']);
    expect(alternativesFor(binding, 'comments')).toEqual([]);
    expect(portSession(binding, NATIVE_PORT)).toEqual({ engine: 'state' });
    expect(portSession(binding, 'process')).toBeNull();
    expect(alternativesFor(createProviderBinding(capstone, session, 'auto'), 'pseudocode')).toEqual([]);
  });
});
