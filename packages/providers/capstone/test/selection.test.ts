import { describe, expect, it } from '@jest/globals';
import { createProviderRegistry, probeProviders, selectProvider } from '@rea/provider-kit';
import type { DeepProvider } from '@rea/provider-kit';
import { createCapstoneProvider } from '@rea/provider-capstone';

/** A scripted stand-in for an external engine (not an engine): ready or not, as told. */
function external(id: string, ready: boolean): DeepProvider {
  return {
    kind: 'deep',
    port: 'native',
    id,
    name: id,
    version: '1',
    capabilities: ['pseudocode'],
    probe: async () =>
      ready
        ? { status: 'ready', version: '1' }
        : { status: 'unavailable', reason: 'not installed', remediation: 'install it' },
    tools: () => [],
    open: async () => {
      throw new Error('the stand-in never opens');
    },
  };
}

async function auto(providers: DeepProvider[], format = 'elf') {
  const registry = createProviderRegistry(providers);
  const probes = await probeProviders(registry, { signal: new AbortController().signal });
  return selectProvider({ registry, choice: { kind: 'auto' }, source: 'argument', target: { format }, probes });
}

describe('auto provider selection', () => {
  it('falls back to the embedded engine when no external engine is ready', async () => {
    const selection = await auto([createCapstoneProvider(), external('ghidra', false)]);
    expect(selection.provider.id).toBe('capstone');
    expect(selection.candidates.find((c) => c.id === 'capstone')).toMatchObject({ embedded: true, available: true });
  });

  it('prefers a ready external engine over the embedded one', async () => {
    expect((await auto([createCapstoneProvider(), external('ghidra', true)])).provider.id).toBe('ghidra');
  });

  it('accepts the formats hosts sniff, and leaves universal binaries to open (which names the slices)', () => {
    const provider = createCapstoneProvider();
    expect(provider.supportsTarget!({ format: 'mach-o' })).toBe('unknown');
    expect(provider.supportsTarget!({ format: 'elf', architecture: 'x86_64' })).toBe('supported');
    expect(provider.supportsTarget!({ format: 'pe', architecture: 'aarch64' })).toBe('supported');
    expect(provider.supportsTarget!({ format: 'elf', architecture: 'arm' })).toBe('unsupported');
    expect(provider.supportsTarget!({ format: 'zip' })).toBe('unsupported');
    expect(provider.supportsTarget!({ format: 'mach-o-universal' })).toBe('unknown');
  });
});
