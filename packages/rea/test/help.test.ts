import { describe, expect, it } from '@jest/globals';
import { EXIT_CODES } from '@rea/cli';
import { HELP_TEXT, createDefaultTools, renderHelpText } from 'rea-mcp';

describe('rea help', () => {
  it('should keep the precomputed help equal to the help of the default catalog', async () => {
    const current = await renderHelpText();
    if (HELP_TEXT !== current) {
      throw new Error(
        'The tool catalog changed, so the precomputed `rea --help` is stale. Regenerate it: ' +
          '`npm run generate` (node tools/generate.mjs), then commit packages/rea/src/help.ts.',
      );
    }
    expect(HELP_TEXT).toBe(current);
  });

  it('should give every exit status with what it means', () => {
    const line = HELP_TEXT.trim().split('\n').at(-1)!;
    expect(line.startsWith('Exit status: 0 success, ')).toBe(true);
    for (const [code, status] of Object.entries(EXIT_CODES))
      expect(line).toContain(`${status} ${code === 'invalid_request' ? 'invalid request' : code.replace(/_/g, ' ')}`);
  });

  it('should list every tool of the default catalog as a kebab-case command', async () => {
    const tools = await createDefaultTools();
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) expect(HELP_TEXT).toContain(`\n  ${tool.name.replace(/_/g, '-')} `);
  });
});
