import { describe, expect, it } from '@jest/globals';
import { createDefaultProviders, createDefaultTools } from 'rea-mcp';
import { createProvidersFor, createToolsFor } from '../src/defaults.js';
import { createReaHost } from '../src/host.js';

// `rea analyze` of a native binary runs three tools: it loads the providers that contribute them and
// every deep provider (to open the binary), not the Android or JavaScript providers.
const NATIVE_OVERVIEW = ['inspect_binary_layout', 'inspect_artifact', 'binary_overview'];
// Of an Android package: its inventory and the Android inspection, from two tools-only providers.
const ANDROID_OVERVIEW = ['inspect_artifact', 'inspect_android_package'];

describe('issue 22: a command using a few tools loads only their providers', () => {
  it('should list for each tools-only provider exactly the tools it contributes', async () => {
    for (const provider of await createDefaultProviders()) {
      const names = provider.tools().map((tool) => tool.name);
      if (provider.kind === 'deep') continue;
      for (const name of names) {
        const chosen = await createProvidersFor([name]);
        expect(chosen.filter((p) => p.kind === 'tools').map((p) => p.id)).toEqual([provider.id]);
      }
      // A provider is chosen for a tool only when it contributes that tool.
      const others = (await createProvidersFor(names)).filter((p) => p.kind === 'tools' && p.id !== provider.id);
      for (const other of others) expect(other.tools().some((tool) => names.includes(tool.name))).toBe(true);
    }
  });

  it('should choose every deep provider and only the artifact provider for the native overview', async () => {
    const all = await createDefaultProviders();
    const deep = all.filter((p) => p.kind === 'deep').map((p) => p.id);
    const chosen = await createProvidersFor(NATIVE_OVERVIEW);
    expect(chosen.map((p) => p.id)).toEqual([...deep, 'artifact'].sort());
  });

  it('should build the Android overview from the Android and artifact providers alone, no deep provider', async () => {
    const chosen = await createProvidersFor(ANDROID_OVERVIEW, new Map(), { deep: false });
    expect(chosen.map((p) => p.id)).toEqual(['android', 'artifact']);
    const host = createReaHost({ script: undefined });
    const tools = await host.loadToolsFor!(ANDROID_OVERVIEW);
    expect(tools.map((tool) => tool.name)).toEqual([...ANDROID_OVERVIEW].sort());
  });

  it('should make the named tools exactly as the complete catalog has them', async () => {
    const complete = await createDefaultTools();
    const chosen = await createToolsFor(NATIVE_OVERVIEW, await createProvidersFor(NATIVE_OVERVIEW));
    const expected = complete.filter((tool) => NATIVE_OVERVIEW.includes(tool.name));
    expect(chosen.map((tool) => tool.name)).toEqual([...NATIVE_OVERVIEW].sort());
    expect(chosen.map((tool) => [tool.name, tool.description, tool.output])).toEqual(
      expected.map((tool) => [tool.name, tool.description, tool.output]),
    );
    // A server tool is found too, and a name the catalog lacks is left out.
    const server = await createToolsFor(['binary_session', 'no_such_tool'], []);
    expect(server.map((tool) => tool.name)).toEqual(['binary_session']);
  });

  it('should reuse the providers made for a few tools when the host later loads them all', async () => {
    const host = createReaHost({ script: undefined });
    const few = await host.loadProvidersFor!(NATIVE_OVERVIEW);
    const tools = await host.loadToolsFor!(NATIVE_OVERVIEW);
    expect(tools.map((tool) => tool.name)).toEqual([...NATIVE_OVERVIEW].sort());
    const all = await host.loadProviders();
    for (const provider of few) expect(all).toContain(provider);
    expect(all.length).toBeGreaterThan(few.length);
  });
});
