import { describe, expect, it } from '@jest/globals';
import { SERVER_TOOLS } from '@rea/server';
import { createDefaultProviders, createDefaultTools, launchCommandFor } from 'rea';

describe('rea composition', () => {
  it('should create the default providers sorted by id, each valid and with a probe', async () => {
    const providers = await createDefaultProviders();
    const ids = providers.map((p) => p.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toContain('artifact');
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

  it('should register npx when running from the npx cache and this installation otherwise', () => {
    expect(launchCommandFor('/home/u/.npm/_npx/1a2b/node_modules/rea/dist/bin.js', '/usr/bin/node')).toEqual({
      command: 'npx',
      args: ['-y', 'rea', 'mcp'],
    });
    expect(launchCommandFor('/opt/rea/missing/bin.js', '/usr/bin/node')).toEqual({
      command: '/usr/bin/node',
      args: ['/opt/rea/missing/bin.js', 'mcp'],
    });
  });
});
