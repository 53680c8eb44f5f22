import { describe, expect, it } from '@jest/globals';
import { NATIVE_TOOL_NAMES, createNativeTools, loadNativeTools } from '@rea/native';

describe('issue 22: loadNativeTools builds only the named native tools', () => {
  const all = createNativeTools();

  it('should name every native tool', () => {
    expect(NATIVE_TOOL_NAMES).toEqual(all.map((tool) => tool.name));
  });

  it('should return for each name the very contract createNativeTools returns', async () => {
    for (const tool of all) expect(await loadNativeTools([tool.name])).toEqual([tool]);
    const loaded = await loadNativeTools([...NATIVE_TOOL_NAMES].reverse());
    expect(loaded.length).toBe(all.length);
    loaded.forEach((tool, index) => expect(tool).toBe(all[index]));
  });

  it('should leave out names that are not native tools, and repeated names', async () => {
    const loaded = await loadNativeTools(['inspect_artifact', 'xrefs', 'binary_overview', 'xrefs', 'toString']);
    expect(loaded.map((tool) => tool.name)).toEqual(['binary_overview', 'xrefs']);
  });
});
