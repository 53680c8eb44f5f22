import { describe, expect, it } from '@jest/globals';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staticImportGraph } from '@rea/test-helpers';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');

describe('importing @rea/artifact', () => {
  it('should not load the ZIP engine or the container readers until they are used', () => {
    const graph = staticImportGraph(join(src, 'index.ts'));
    const external = new Set([...graph.values()].flat().filter((s) => !s.startsWith('.')));
    expect(external.has('yauzl')).toBe(false);
    const loaded = [...graph.keys()].map((file) => file.slice(src.length + 1));
    expect(loaded.filter((file) => /^(engine|inventory|extract)\//.test(file))).toEqual([]);
  });

  it('should import yauzl only in the ZIP seam: engine/zip.ts and the directory decoder only it imports', () => {
    const all = staticImportGraph(join(src, 'inventory', 'zip.ts'));
    const importers = [...all]
      .filter(([, specifiers]) => specifiers.includes('yauzl'))
      .map(([file]) => file.slice(src.length + 1));
    expect(importers.sort()).toEqual(['engine/zip.ts', 'engine/zipDirectory.ts']);
    const directoryImporters = [...all]
      .filter(([, specifiers]) => specifiers.includes('./zipDirectory.js'))
      .map(([file]) => file.slice(src.length + 1));
    expect(directoryImporters).toEqual(['engine/zip.ts']);
  });
});
