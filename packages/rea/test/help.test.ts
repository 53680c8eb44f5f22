import { describe, expect, it } from '@jest/globals';
import { HELP_TEXT, createDefaultTools, renderHelpText } from 'rea';

describe('rea help', () => {
  it('should keep the precomputed help equal to the help of the default catalog', async () => {
    // When this fails, the catalog changed: run `node tools/build.mjs && node packages/rea/scripts/help.mjs`.
    expect(HELP_TEXT).toBe(await renderHelpText());
  });

  it('should list every tool of the default catalog as a kebab-case command', async () => {
    const tools = await createDefaultTools();
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) expect(HELP_TEXT).toContain(`\n  ${tool.name.replace(/_/g, '-')} `);
  });
});
