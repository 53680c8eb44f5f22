// Creating the provider and describing its tools must not load the parser and the analysis: they load
// with the first analysis (a first call of any other tool of the server paid for them).
import { describe, expect, it } from '@jest/globals';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staticImportGraph } from '@rea/test-helpers';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');

describe('issue 22: the JavaScript provider loads its analysis with the first analysis', () => {
  it('should reach neither the parser, the source-map reader nor the analysis from the provider', () => {
    const graph = staticImportGraph(join(src, 'provider.ts'));
    const external = new Set([...graph.values()].flat().filter((s) => !s.startsWith('.')));
    expect(external.has('meriyah')).toBe(false);
    expect(external.has('@jridgewell/trace-mapping')).toBe(false);
    const loaded = [...graph.keys()].map((file) => file.slice(src.length + 1));
    expect(loaded.filter((file) => /^(engine|worker)\/|^analysis\/analyze\.ts$/.test(file))).toEqual([]);
    // The tools are all there.
    expect(loaded.filter((file) => file.startsWith('tools/')).length).toBeGreaterThanOrEqual(6);
  });
});
