import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** Modules reachable from `entry` through static imports (dynamic `import()` is not followed). */
function staticGraph(entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (graph.has(file)) continue;
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/^(?:import|export)\s(?!type\b)[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]!);
    graph.set(file, specifiers);
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) queue.push(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
    }
  }
  return graph;
}

describe('importing @rea/artifact', () => {
  it('should not load the ZIP engine or the container readers until they are used', () => {
    const graph = staticGraph(join(src, 'index.ts'));
    const external = new Set([...graph.values()].flat().filter((s) => !s.startsWith('.')));
    expect(external.has('yauzl')).toBe(false);
    const loaded = [...graph.keys()].map((file) => file.slice(src.length + 1));
    expect(loaded.filter((file) => /^(engine|inventory|extract)\//.test(file))).toEqual([]);
  });

  it('should import yauzl only in the ZIP seam: engine/zip.ts and the directory decoder only it imports', () => {
    const all = staticGraph(join(src, 'inventory', 'inspect.ts'));
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
