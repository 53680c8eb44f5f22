// Imports that name a folder resolve as Node resolves them: `require('./lib/')`, `require('..')` and
// `require('../')` name the folder's index file; `./lib` is the file lib.js when there is one, else the
// folder. A folder with a package.json whose `main` names a file of the input resolves to that file
// first. A folder reached by climbing is the input's (or a container's) root, never above it.
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

  describe("with package.json's main", () => {
    const files = new Set([
      'index.js',
      'bin/cli.js',
      'lib/main.js',
      'lib/index.js',
      'lib/entry/index.js',
      'vendor/dist/v.js',
      'vendor/index.js',
    ]);
    it.each<[string, string, Record<string, string>, string | null]>([
      // main with and without its suffix, with and without ./
      ['bin/cli.js', '..', { '': 'lib/main.js' }, 'lib/main.js'],
      ['bin/cli.js', '..', { '': './lib/main' }, 'lib/main.js'],
      // main naming a folder: that folder's index file
      ['bin/cli.js', '../', { '': 'lib/entry' }, 'lib/entry/index.js'],
      // a nested package's own main
      ['index.js', './vendor', { 'vendor/': 'dist/v.js' }, 'vendor/dist/v.js'],
      // main naming no file of the input, the folder itself, or a path above the root: the index file
      ['bin/cli.js', '..', { '': 'gone.js' }, 'index.js'],
      ['bin/cli.js', '..', { '': '.' }, 'index.js'],
      ['index.js', './vendor/', { 'vendor/': '../../x.js' }, 'vendor/index.js'],
      // a file named by the reference comes before any folder
      ['index.js', './lib/main', { 'lib/': 'entry' }, 'lib/main.js'],
    ])('from %s, %s with mains %j resolves to %s', (from, reference, mains, expected) => {
      expect(resolveFile(from, reference, files, new Map(Object.entries(mains)))).toBe(expected);
    });

    it("should follow a folder's main in an analysis", async () => {
      await withTempDir(async (tmp) => {
        mkdirSync(join(tmp, 'bin'));
        mkdirSync(join(tmp, 'lib'));
        writeFileSync(
          join(tmp, 'package.json'),
          JSON.stringify({ name: 'mains', version: '1.0.0', main: 'lib/entry' }),
        );
        writeFileSync(join(tmp, 'lib', 'entry.js'), 'module.exports = 42;\n');
        writeFileSync(join(tmp, 'bin', 'cli.js'), "console.log(require('..'));\n");
        const { result, coverage } = await analyzeJavascriptApplication(tmp);
        expect(coverage.reasons.join('\n')).not.toContain('relative imports name no file');
        const edges = result.edges.map((e) => [e.from, e.specifier, e.to, e.target_kind]);
        expect(edges).toContainEqual(['file:bin/cli.js', '..', 'file:lib/entry.js', 'module']);
      });
    });
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
