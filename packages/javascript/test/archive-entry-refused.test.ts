// An archive may hold entries that its extraction refuses for their paths: real ones do (Debian's
// libffi documentation holds both index.html and Index.html, which would overwrite each other on a
// case-insensitive file system). The analysis of an application, or of a folder holding such an
// archive, leaves those entries unread with why and analyzes everything else, rather than failing
// whole. Archives are built with the real `zip`.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';

/** Writes `files` under `dir` and zips them, in the order given, into `zip`. */
function zipOf(dir: string, zip: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  execFileSync('zip', ['-q', '-X', zip, ...Object.keys(files)], { cwd: dir });
}

const COLLIDING = {
  'Index.js': 'exports.upper = require("./util");\n',
  'index.js': 'exports.lower = 1;\n',
  'util.js': 'module.exports = 2;\n',
};

const unknownsOf = (result: { unknowns: Array<{ scope: string; kind: string; message: string }> }) =>
  result.unknowns.filter((u) => u.kind === 'unsafe-path' || u.kind === 'not-read');

describe('an archive entry its extraction refuses', () => {
  it('is left unread in a folder, and the folder and the rest of the archive are analyzed', async () => {
    await withTempDir(async (tmp) => {
      const app = join(tmp, 'app');
      mkdirSync(app);
      writeFileSync(join(app, 'main.js'), 'require("./helper");\n');
      writeFileSync(join(app, 'helper.js'), 'module.exports = 3;\n');
      zipOf(join(tmp, 'parts'), join(app, 'bundle.zip'), COLLIDING);
      const { result, coverage } = await analyzeJavascriptApplication(app);
      const paths = result.modules.map((m) => m.path).sort();
      expect(paths).toEqual(['bundle.zip!/Index.js', 'bundle.zip!/util.js', 'helper.js', 'main.js']);
      const refused = unknownsOf(result);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ scope: 'file:bundle.zip!/index.js', kind: 'unsafe-path' });
      expect(refused[0]!.message).toMatch(
        /case collision \(it differs only in letter case from "Index\.js"\); not analyzed\./,
      );
      expect(coverage.status).toBe('partial');
    });
  });

  it('is left unread in an application archive analyzed itself', async () => {
    await withTempDir(async (tmp) => {
      zipOf(join(tmp, 'parts'), join(tmp, 'app.zip'), COLLIDING);
      const { result } = await analyzeJavascriptApplication(join(tmp, 'app.zip'));
      expect(result.modules.map((m) => m.path).sort()).toEqual(['Index.js', 'util.js']);
      expect(unknownsOf(result).map((u) => [u.scope, u.kind])).toEqual([['file:index.js', 'unsafe-path']]);
    });
  });

  it('leaves the rest of an archive unread after 16 refused entries, without failing the analysis', async () => {
    await withTempDir(async (tmp) => {
      const files: Record<string, string> = { 'first.js': 'exports.first = 1;\n' };
      for (let i = 0; i < 18; i += 1) {
        files[`M${i}.js`] = `exports.upper = ${i};\n`;
        files[`m${i}.js`] = `exports.lower = ${i};\n`;
      }
      const app = join(tmp, 'app');
      mkdirSync(app);
      writeFileSync(join(app, 'main.js'), 'module.exports = 0;\n');
      zipOf(join(tmp, 'parts'), join(app, 'many.zip'), files);
      const { result } = await analyzeJavascriptApplication(app);
      const kinds = unknownsOf(result).map((u) => u.kind);
      expect(kinds.filter((k) => k === 'unsafe-path')).toHaveLength(16);
      // What was left once 16 were refused: the 18 first-spelled entries, first.js and 2 colliding ones.
      expect(kinds.filter((k) => k === 'not-read')).toHaveLength(37 - 16);
      expect(result.modules.map((m) => m.path)).toEqual(['main.js']);
    });
  });
});
