import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { createAnalysisProfile, isReaError } from '@rea/evidence';
import {
  NO_EFFECTS,
  createProviderBinding,
  createProviderRegistry,
  defineTool,
  isDeepProvider,
  requireCapability,
  validateProvider,
} from '@rea/provider-kit';
import type { DeepProvider, DeepSession, Provider, ToolEffects } from '@rea/provider-kit';

const effects: ToolEffects = { ...NO_EFFECTS, readOnly: true, idempotent: true };

function tool(name: string) {
  return defineTool({
    name,
    title: name,
    description: `Reports ${name}; a catalog entry used to test provider registries.`,
    input: z.object({}),
    result: z.object({ ok: z.boolean() }),
    examples: [{ input: {} }],
    effects,
    produces: 'result',
    run: async () => ({ ok: true }),
  });
}

function provider(id: string, extra: Partial<DeepProvider> = {}): DeepProvider {
  return {
    id,
    name: `Engine ${id}`,
    version: '0.1.0',
    kind: 'deep',
    port: 'native',
    capabilities: ['disassembly', 'decompilation'],
    probe: async () => ({ status: 'ready' }),
    tools: () => [],
    open: async () => {
      throw new Error('not used');
    },
    ...extra,
  };
}

function caught(run: () => unknown): { code: string; details: Record<string, unknown>; remediation: string } {
  try {
    run();
  } catch (error) {
    expect(isReaError(error)).toBe(true);
    return error as { code: string; details: Record<string, unknown>; remediation: string };
  }
  throw new Error('expected a ReaError');
}

describe('requireCapability', () => {
  it('should pass a declared capability and refuse an undeclared one with capability_unavailable', () => {
    const ghidra = provider('ghidra');
    expect(() => requireCapability(ghidra, 'decompilation')).not.toThrow();
    const error = caught(() => requireCapability(ghidra, 'write-comments', { alternatives: ['hopper'] }));
    expect(error).toMatchObject({
      code: 'capability_unavailable',
      details: { capability: 'write-comments', provider_id: 'ghidra', alternatives: ['hopper'] },
    });
    expect(error.remediation).toContain('hopper');
  });
});

describe('validateProvider', () => {
  for (const [label, bad] of [
    ['an uppercase id', provider('Ghidra')],
    ['the reserved id auto', provider('auto')],
    ['an empty name', provider('x', { name: ' ' })],
    ['an empty version', provider('x', { version: '' })],
    ['repeated capabilities', provider('x', { capabilities: ['a', 'a'] })],
    ['a deep provider without open', { ...provider('x'), open: undefined } as unknown as Provider],
  ] as const) {
    it(`should refuse ${label}`, () => {
      expect(caught(() => validateProvider(bad))).toMatchObject({
        code: 'invalid_request',
        details: { reason: 'invalid-provider' },
      });
    });
  }
});

describe('createProviderRegistry', () => {
  const tools: Provider = {
    id: 'artifact',
    name: 'Artifacts',
    version: '1.0.0',
    kind: 'tools',
    capabilities: ['archives'],
    probe: async () => ({ status: 'ready' }),
    tools: () => [tool('list_entries'), tool('extract_artifact')],
  };

  it('should sort providers by id and separate the deep ones', () => {
    const registry = createProviderRegistry([provider('hopper'), tools, provider('capstone')]);
    expect(registry.providers.map((p) => p.id)).toEqual(['artifact', 'capstone', 'hopper']);
    expect(registry.deep.map((p) => p.id)).toEqual(['capstone', 'hopper']);
    expect(registry.get('hopper')?.id).toBe('hopper');
    expect(registry.get('ghidra')).toBeUndefined();
    expect(isDeepProvider(registry.require('capstone'))).toBe(true);
    expect(isDeepProvider(registry.require('artifact'))).toBe(false);
    expect(Object.isFrozen(registry.providers)).toBe(true);
  });

  it('should refuse duplicate ids', () => {
    expect(caught(() => createProviderRegistry([provider('ghidra'), provider('ghidra')]))).toMatchObject({
      code: 'invalid_request',
      details: { reason: 'duplicate-provider', provider_id: 'ghidra' },
    });
  });

  it('should fail require for an unknown id with not_found naming the known ids', () => {
    const registry = createProviderRegistry([provider('ghidra')]);
    expect(caught(() => registry.require('hopper'))).toMatchObject({
      code: 'not_found',
      details: { provider_id: 'hopper', known: ['ghidra'] },
      remediation: 'Name one of the providers in details.known.',
    });
  });

  it('should collect every contributed tool sorted by name, refusing duplicates across providers', () => {
    const registry = createProviderRegistry([
      tools,
      provider('capstone', { tools: () => [tool('disassemble_range')] }),
    ]);
    expect(registry.tools().map((t) => t.name)).toEqual(['disassemble_range', 'extract_artifact', 'list_entries']);
    const clash = createProviderRegistry([tools, provider('capstone', { tools: () => [tool('list_entries')] })]);
    expect(caught(() => clash.tools())).toMatchObject({ details: { reason: 'duplicate-tool' } });
  });

  it('should hold nothing that was not passed in', () => {
    expect(createProviderRegistry([]).providers).toEqual([]);
  });
});

describe('createProviderBinding', () => {
  const ghidra = provider('ghidra');
  const profile = createAnalysisProfile({
    name: 'ghidra-headless',
    version: '12.1.4',
    settings: { analyzers: 'default' },
  });
  const session = (overrides: Partial<DeepSession> = {}): DeepSession => ({
    provider: { id: 'ghidra', name: 'Ghidra', version: '12.1.4' },
    analysis_profile: profile,
    session: { project: 'p' },
    close: async () => undefined,
    ...overrides,
  });

  it('should build a frozen binding from a verified session', () => {
    const binding = createProviderBinding(ghidra, session(), 'argument');
    expect(binding).toEqual({
      provider: { id: 'ghidra', name: 'Ghidra', version: '12.1.4' },
      port: 'native',
      selection_source: 'argument',
      analysis_profile: profile,
      session: { project: 'p' },
    });
    expect(Object.isFrozen(binding)).toBe(true);
  });

  it('should refuse a session that names another provider, lacks a version or carries a forged profile digest', () => {
    for (const bad of [
      session({ provider: { id: 'hopper', name: 'Hopper', version: '5' } }),
      session({ provider: { id: 'ghidra', name: 'Ghidra', version: ' ' } }),
      session({ analysis_profile: { ...profile, settings: { analyzers: 'none' } } }),
    ]) {
      expect(caught(() => createProviderBinding(ghidra, bad, 'auto')).code).toBe('internal');
    }
  });
});
