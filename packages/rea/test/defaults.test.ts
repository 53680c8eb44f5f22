import { describe, expect, it } from '@jest/globals';
import { SERVER_TOOLS } from '@rea/server';
import { describeSettings, providerSettings } from '@rea/provider-kit';
import { createDefaultProviders, createDefaultTools, registrationCommand } from 'rea-mcp';
import { DEFAULT_PROVIDER_SETTINGS } from '../src/settings.js';

describe('rea composition', () => {
  it('should create the default providers sorted by id, each valid and with a probe', async () => {
    const providers = await createDefaultProviders();
    const ids = providers.map((p) => p.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toContain('artifact');
    expect(ids).toContain('android');
    expect(ids).toContain('android-device');
    expect(ids).toContain('browser');
    expect(ids).toContain('lldb');
    for (const provider of providers) expect(['deep', 'tools']).toContain(provider.kind);
  });

  it('should build one sorted catalog of the server tools and every provider tool, without duplicates', async () => {
    const providers = await createDefaultProviders();
    const tools = await createDefaultTools(providers);
    const names = tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(names.length);
    for (const tool of SERVER_TOOLS) expect(names).toContain(tool.name);
    for (const provider of providers) for (const tool of provider.tools()) expect(names).toContain(tool.name);
  });

  it('should validate at start exactly the settings the default providers declare', async () => {
    const declared = describeSettings(providerSettings(await createDefaultProviders()));
    expect(describeSettings(DEFAULT_PROVIDER_SETTINGS)).toEqual(declared);
    expect(declared.map((setting) => setting.variable)).toContain('REA_CAPSTONE_OPEN_TIMEOUT_MS');
    expect(declared.map((setting) => setting.variable)).toEqual(
      expect.arrayContaining(['REA_CHROME_PATH', 'REA_BROWSER_START_TIMEOUT_MS']),
    );
  });

  it('should register the published package through npx, by the name in its manifest', () => {
    expect(registrationCommand()).toEqual({ command: 'npx', args: ['-y', 'rea-mcp', 'mcp'] });
    expect(registrationCommand('rea-mcp@1.2.3')).toEqual({ command: 'npx', args: ['-y', 'rea-mcp@1.2.3', 'mcp'] });
  });
});
