import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The modules reachable from the TypeScript source file `entry` through static imports and re-exports
 * (type-only imports and dynamic `import()` are not followed), each with the specifiers it names: what
 * loading `entry` loads, for tests that keep an engine out of a package's start-up.
 */
export function staticImportGraph(entry: string): Map<string, string[]> {
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
