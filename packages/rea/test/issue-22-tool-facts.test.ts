import { describe, expect, it } from '@jest/globals';
import { nativeAvailability } from '@rea/native';
import { toolFactsMismatch, toolFactsOf } from '@rea/provider-kit';
import { createCompositionTools, createDefaultProviders } from 'rea-mcp';
// The generated facts are internal to the package (only `rea mcp` uses them), so they are reached by path.
import { COMPOSITION_TOOL_FACTS, DEFERRED_TOOL_FACTS } from '../src/generated/toolFacts.js';

describe('issue 22: the generated tool facts of the tools-only providers', () => {
  it('should state every tools-only provider and the facts of each of its tools as the contracts do', async () => {
    const providers = (await createDefaultProviders()).filter((provider) => provider.kind === 'tools');
    if (Object.keys(DEFERRED_TOOL_FACTS).length !== providers.length) {
      throw new Error('The generated tool facts are stale: run `npm run generate` (node tools/generate.mjs).');
    }
    for (const provider of providers) {
      expect(DEFERRED_TOOL_FACTS[provider.id]).toEqual(provider.tools().map((tool) => toolFactsOf(tool)));
      // Every tool of a tools-only default provider is always available, as its facts imply.
      expect(toolFactsMismatch(DEFERRED_TOOL_FACTS[provider.id]!, provider.tools())).toEqual([]);
    }
  });

  it("should state the composition's native tools and which of them need a native target open", async () => {
    const tools = await createCompositionTools();
    const { always, native } = COMPOSITION_TOOL_FACTS;
    expect([...always, ...native].sort((a, b) => (a.name < b.name ? -1 : 1))).toEqual(
      tools.map((tool) => toolFactsOf(tool)),
    );
    const named = (facts: typeof always) => tools.filter((tool) => facts.some((entry) => entry.name === tool.name));
    expect(toolFactsMismatch(always, named(always))).toEqual([]);
    expect(toolFactsMismatch(native, named(native), nativeAvailability)).toEqual([]);
    expect(native.length).toBeGreaterThan(20);
  });
});
