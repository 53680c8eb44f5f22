// A file that indexes a table of functions and calls the entry with three arguments
// (`bufferParsers[type](node, position, buffer)` in Rollup's own distribution) is not webpack's runtime:
// only a call passing a module object, its exports and the require function itself is. Before, the 95
// parser functions of Rollup's `dist/es/shared/node-entry.js` were reported as webpack modules.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';

/** The ES build of the Rollup package installed for the fixtures (a real, non-webpack distribution). */
const ROLLUP_ES = join(dirname(createRequire(import.meta.url).resolve('rollup/package.json')), 'dist', 'es');

describe("Rollup's own distribution", () => {
  it('should not be split into webpack modules', async () => {
    const entry = readFileSync(join(ROLLUP_ES, 'shared', 'node-entry.js'), 'utf8');
    // The shape that misled the detection is there: an array of functions indexed and called with three arguments.
    expect(entry).toMatch(/const bufferParsers = \[\s*function \w+\(node, position, buffer\)/);
    expect(entry).toMatch(/bufferParsers\[nodeType\]\(node, position \+ 3, buffer\)/);
    const { result } = await analyzeJavascriptApplication(ROLLUP_ES);
    expect(result.modules.filter((m) => m.bundler === 'webpack').map((m) => m.path)).toEqual([]);
    expect(result.bundled_modules.filter((m) => m.bundler === 'webpack')).toEqual([]);
    expect(
      result.edges.filter((e) => e.kind === 'bundler-require' && e.from.startsWith('file:shared/node-entry')),
    ).toEqual([]);
  }, 60_000);
});
