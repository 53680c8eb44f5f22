import { describe, expect, it } from '@jest/globals';
import { isReaError } from '@rea/evidence';
import {
  createProviderRegistry,
  describeCandidates,
  parseProviderChoice,
  probeProviders,
  selectProvider,
} from '@rea/provider-kit';
import type { DeepProvider, ProbeResult, Provider, TargetSupport } from '@rea/provider-kit';

function deep(id: string, options: { embedded?: boolean; support?: Record<string, TargetSupport> } = {}): DeepProvider {
  return {
    id,
    name: id.toUpperCase(),
    version: '1.0.0',
    kind: 'deep',
    port: 'native',
    capabilities: ['disassembly'],
    ...(options.embedded ? { embedded: true } : {}),
    probe: async () => ({ status: 'ready' }),
    tools: () => [],
    ...(options.support
      ? { supportsTarget: (target: { format: string }) => options.support![target.format] ?? 'unsupported' }
      : {}),
    open: async () => {
      throw new Error('not opened in selection tests');
    },
  };
}

const ready: ProbeResult = { status: 'ready', version: '12.1.4' };
const missing: ProbeResult = {
  status: 'unavailable',
  reason: 'GHIDRA_INSTALL_DIR is not set',
  remediation: 'Install Ghidra.',
};

const capstone = deep('capstone', { embedded: true, support: { elf: 'supported', pe: 'supported' } });
const ghidra = deep('ghidra', { support: { elf: 'supported', pe: 'supported', 'mach-o': 'supported' } });
const hopper = deep('hopper', { support: { 'mach-o': 'supported', elf: 'supported' } });
const artifact: Provider = {
  id: 'artifact',
  name: 'Artifacts',
  version: '1.0.0',
  kind: 'tools',
  capabilities: [],
  probe: async () => ({ status: 'ready' }),
  tools: () => [],
};
const registry = createProviderRegistry([hopper, artifact, ghidra, capstone]);

function probes(entries: Record<string, ProbeResult>): Map<string, ProbeResult> {
  return new Map(Object.entries(entries));
}

function selectionError(run: () => unknown): { code: string; details: Record<string, unknown> } {
  try {
    run();
  } catch (error) {
    expect(isReaError(error)).toBe(true);
    return error as { code: string; details: Record<string, unknown> };
  }
  throw new Error('expected provider_selection');
}

describe('parseProviderChoice', () => {
  it('should accept auto and concrete ids', () => {
    expect(parseProviderChoice('auto')).toEqual({ kind: 'auto' });
    expect(parseProviderChoice('ghidra')).toEqual({ kind: 'concrete', id: 'ghidra' });
    expect(parseProviderChoice('provider-2')).toEqual({ kind: 'concrete', id: 'provider-2' });
  });

  for (const value of ['', 'Ghidra', 'AUTO', ' ghidra', 'ghidra ', 'ghi dra', '2ghidra', 'ghidra_x', 42, null]) {
    it(`should refuse ${JSON.stringify(value)} as an argument with invalid_request`, () => {
      expect(selectionError(() => parseProviderChoice(value))).toMatchObject({
        code: 'invalid_request',
        details: { reason: 'invalid-provider-id' },
      });
    });
  }

  it('should refuse invalid syntax from the environment with configuration_invalid', () => {
    expect(selectionError(() => parseProviderChoice('Ghidra', 'environment'))).toMatchObject({
      code: 'configuration_invalid',
      details: { variable: 'REA_ANALYSIS_PROVIDER', value: 'Ghidra' },
    });
  });
});

describe('describeCandidates', () => {
  it('should list deep providers by id with availability and unknown support without a target', () => {
    expect(describeCandidates(registry, probes({ capstone: ready, ghidra: missing }))).toEqual([
      { id: 'capstone', available: true, reason: null, target_support: 'unknown', embedded: true },
      {
        id: 'ghidra',
        available: false,
        reason: 'GHIDRA_INSTALL_DIR is not set',
        target_support: 'unknown',
        embedded: false,
      },
      { id: 'hopper', available: false, reason: 'not probed', target_support: 'unknown', embedded: false },
    ]);
  });

  it('should report target support when a target is given', () => {
    const candidates = describeCandidates(registry, probes({ capstone: ready, ghidra: ready, hopper: ready }), {
      format: 'mach-o',
    });
    expect(candidates.map((c) => [c.id, c.target_support, c.reason])).toEqual([
      ['capstone', 'unsupported', 'does not support mach-o targets'],
      ['ghidra', 'supported', null],
      ['hopper', 'supported', null],
    ]);
  });
});

describe('selectProvider', () => {
  const elf = { format: 'elf', architecture: 'x86_64' };

  it('should pick the single ready external engine for auto', () => {
    const selection = selectProvider({
      registry,
      choice: { kind: 'auto' },
      source: 'argument',
      target: elf,
      probes: probes({ capstone: ready, ghidra: ready, hopper: missing }),
    });
    expect(selection.provider.id).toBe('ghidra');
    expect(selection.source).toBe('auto');
  });

  it('should treat a missing choice as auto', () => {
    const selection = selectProvider({
      registry,
      choice: null,
      source: 'environment',
      target: elf,
      probes: probes({ capstone: ready, hopper: ready }),
    });
    expect(selection).toMatchObject({ provider: { id: 'hopper' }, source: 'auto' });
  });

  it('should fall back to the embedded engine when no external engine is ready', () => {
    const selection = selectProvider({
      registry,
      choice: { kind: 'auto' },
      source: 'argument',
      target: elf,
      probes: probes({ capstone: ready, ghidra: missing, hopper: missing }),
    });
    expect(selection.provider.id).toBe('capstone');
  });

  it('should skip a ready external engine that does not support the target', () => {
    const selection = selectProvider({
      registry,
      choice: { kind: 'auto' },
      source: 'argument',
      target: { format: 'pe' },
      probes: probes({ capstone: ready, ghidra: ready, hopper: ready }),
    });
    expect(selection.provider.id).toBe('ghidra');
  });

  it('should refuse auto as ambiguous when several external engines are ready, listing the candidates', () => {
    const error = selectionError(() =>
      selectProvider({
        registry,
        choice: { kind: 'auto' },
        source: 'argument',
        target: elf,
        probes: probes({ capstone: ready, ghidra: ready, hopper: ready }),
      }),
    );
    expect(error).toMatchObject({ code: 'provider_selection', details: { requested: 'auto', reason: 'ambiguous' } });
    expect((error.details['candidates'] as Array<{ id: string }>).map((c) => c.id)).toEqual([
      'capstone',
      'ghidra',
      'hopper',
    ]);
  });

  it('should refuse auto as unavailable when nothing is ready, and unsupported when nothing ready fits', () => {
    expect(
      selectionError(() =>
        selectProvider({ registry, choice: { kind: 'auto' }, source: 'argument', target: elf, probes: probes({}) }),
      ).details['reason'],
    ).toBe('unavailable');
    expect(
      selectionError(() =>
        selectProvider({
          registry,
          choice: { kind: 'auto' },
          source: 'argument',
          target: { format: 'wasm' },
          probes: probes({ capstone: ready, ghidra: ready }),
        }),
      ).details['reason'],
    ).toBe('unsupported');
  });

  it('should honour a concrete choice and keep its source', () => {
    const selection = selectProvider({
      registry,
      choice: parseProviderChoice('hopper', 'environment'),
      source: 'environment',
      target: elf,
      probes: probes({ capstone: ready, ghidra: ready, hopper: ready }),
    });
    expect(selection).toMatchObject({ provider: { id: 'hopper' }, source: 'environment' });
  });

  it('should refuse unknown, tools-only, unavailable and unsupported concrete choices', () => {
    const all = probes({ capstone: ready, ghidra: missing, hopper: ready, artifact: ready });
    const reasonFor = (id: string, format = 'elf') =>
      selectionError(() =>
        selectProvider({
          registry,
          choice: { kind: 'concrete', id },
          source: 'argument',
          target: { format },
          probes: all,
        }),
      ).details;
    expect(reasonFor('radare')).toMatchObject({ requested: 'radare', reason: 'unknown' });
    expect(reasonFor('artifact')).toMatchObject({ requested: 'artifact', reason: 'unknown' });
    expect(reasonFor('ghidra')).toMatchObject({ requested: 'ghidra', reason: 'unavailable' });
    expect(reasonFor('capstone', 'mach-o')).toMatchObject({ requested: 'capstone', reason: 'unsupported' });
    const detail = reasonFor('ghidra');
    expect(detail['candidates']).toContainEqual({
      id: 'ghidra',
      available: false,
      reason: 'GHIDRA_INSTALL_DIR is not set',
      target_support: 'supported',
      embedded: false,
    });
  });
});

describe('probeProviders', () => {
  it('should probe every deep provider and turn a throwing probe into unavailable', async () => {
    const broken: DeepProvider = {
      ...deep('broken'),
      probe: async () => {
        throw new Error('java crashed');
      },
    };
    const results = await probeProviders(createProviderRegistry([broken, capstone, artifact]));
    expect([...results.keys()]).toEqual(['broken', 'capstone']);
    expect(results.get('broken')).toMatchObject({ status: 'unavailable', reason: 'probe failed: java crashed' });
    expect(results.get('capstone')).toEqual({ status: 'ready' });
  });

  it('should answer a target of no known format (an empty or text file) as unsupported_target, not a choice of engine', () => {
    const all = probes({ capstone: ready, ghidra: ready, hopper: ready });
    const error = selectionError(() =>
      selectProvider({
        registry,
        choice: { kind: 'auto' },
        source: 'argument',
        target: { format: 'unknown' },
        probes: all,
      }),
    );
    expect(error.code).toBe('unsupported_target');
    expect(error.details).toMatchObject({ format: 'unknown', reason: 'unknown-format' });
    expect(error.details['candidates']).toHaveLength(3);
    // A known format no ready engine reads is still a matter of engines.
    const wasm = selectionError(() =>
      selectProvider({
        registry,
        choice: { kind: 'auto' },
        source: 'argument',
        target: { format: 'wasm' },
        probes: all,
      }),
    );
    expect(wasm).toMatchObject({ code: 'provider_selection', details: { reason: 'unsupported' } });
  });
});
