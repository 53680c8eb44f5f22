// Imports that name a folder resolve as Node resolves them: `require('./lib/')`, `require('..')` and
// `require('../')` name the folder's index file; `./lib` is the file lib.js when there is one, else the
// folder. A folder reached by climbing is the input's (or a container's) root, never above it.
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';
import { resolveFile } from '../src/analysis/graph.js';

describe('imports that name a folder', () => {
  const known = new Set(['index.js', 'bin/cli.js', 'lib/index.js', 'util.js', 'util/index.js', 'app.asar!/index.js']);

  it.each<[string, string, string | null]>([
    ['bin/cli.js', '..', 'index.js'],
    ['bin/cli.js', '../', 'index.js'],
    ['bin/cli.js', '../lib/', 'lib/index.js'],
    ['bin/cli.js', '../lib', 'lib/index.js'],
    ['index.js', './lib/', 'lib/index.js'],
    ['index.js', '.', 'index.js'],
    // A file before a folder of the same name, unless the slash says folder.
    ['index.js', './util', 'util.js'],
    ['index.js', './util/', 'util/index.js'],
    ['app.asar!/bin/main.js', '..', 'app.asar!/index.js'],
    // Above the input's root: nothing.
    ['index.js', '..', null],
    ['bin/cli.js', '../..', null],
  ])('from %s, %s resolves to %s', (from, reference, expected) => {
    expect(resolveFile(from, reference, known)).toBe(expected);
  });

  it('should leave no folder import of a package unresolved', async () => {
    await withTempDir(async (tmp) => {
      mkdirSync(join(tmp, 'bin'));
      mkdirSync(join(tmp, 'lib'));
      writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'folders', version: '1.0.0', main: 'index.js' }));
      writeFileSync(join(tmp, 'index.js'), "module.exports = require('./lib/');\n");
      writeFileSync(join(tmp, 'lib', 'index.js'), 'module.exports = 42;\n');
      writeFileSync(
        join(tmp, 'bin', 'cli.js'),
        "const a = require('..');\nconst b = require('../');\nconsole.log(a, b);\n",
      );
      const { result, coverage } = await analyzeJavascriptApplication(tmp);
      expect(coverage.reasons.join('\n')).not.toContain('relative imports name no file');
      const edges = result.edges.map((e) => [e.from, e.specifier, e.to, e.target_kind]);
      expect(edges).toEqual(
        expect.arrayContaining([
          ['file:bin/cli.js', '..', 'file:index.js', 'module'],
          ['file:bin/cli.js', '../', 'file:index.js', 'module'],
          ['file:index.js', './lib/', 'file:lib/index.js', 'module'],
        ]),
      );
    });
  });
});
