// compare_source_to_bundle lists the files of the source tree that no source map names. Build outputs
// in the tree (the analyzed bundle itself, other files a bundler emitted) and the project's own files
// (package.json, lockfiles, tsconfig, bundler configs) are no missing source modules: they are listed
// apart, each with why. The bundles are built with the real esbuild at test time, and its metafiles
// (inputs and outputs) are the reference.
import { describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import type { EvidenceRecord } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import { analyzeJavascriptApplicationTool, compareSourceToBundleTool } from '@rea/javascript';
import { quietToolContext, withTempDir } from '@rea/test-helpers';

async function evidence(outcome: ReturnType<typeof executeTool>): Promise<EvidenceRecord> {
  const result = await outcome;
  if (result.kind !== 'evidence') throw new Error('expected Evidence');
  return result.record;
}

const FILES: Record<string, string> = {
  'src/main.js':
    "const { twice } = require('./util');\nconst data = require('./data.json');\nconsole.log(twice(data.n));\n",
  'src/util.js': 'exports.twice = (x) => x * 2;\n',
  'src/data.json': '{ "n": 21 }\n',
  // Written by hand, bundled by no build: the one missing source module.
  'src/unused.js': 'module.exports = 0;\n',
  'package.json': JSON.stringify({ name: 'project', version: '1.0.0', main: 'dist/app.js' }),
  'package-lock.json': JSON.stringify({ name: 'project', lockfileVersion: 3, packages: {} }),
  'tsconfig.json': '{ "compilerOptions": { "allowJs": true } }\n',
  'esbuild.config.mjs': "export default { entryPoints: ['src/main.js'] };\n",
};

/** Bundles `entry` into `outfile` with its source map; resolves to esbuild's metafile. */
async function bundle(entry: string, outfile: string) {
  const options = { bundle: true, platform: 'node', sourcemap: true, metafile: true, logLevel: 'silent' } as const;
  return (await build({ ...options, entryPoints: [entry], outfile })).metafile;
}

describe('compare_source_to_bundle with build outputs and project files in the tree', () => {
  it('should list only the source files no map names, and the outputs and project files apart', async () => {
    await withTempDir(async (project) => {
      for (const [path, text] of Object.entries(FILES)) {
        mkdirSync(join(project, path, '..'), { recursive: true });
        writeFileSync(join(project, path), text);
      }
      // The bundle analyzed (dist/, with its map), and the output of another build, not analyzed.
      const app = await bundle(join(project, 'src/main.js'), join(project, 'dist/app.js'));
      const old = await bundle(join(project, 'src/util.js'), join(project, 'build/old.js'));
      const inTree = (path: string) => relative(project, join(process.cwd(), path)).split('\\').join('/');
      const inputs = Object.keys(app.inputs).map(inTree);
      const outputs = [...Object.keys(app.outputs), ...Object.keys(old.outputs)]
        .map(inTree)
        .filter((path) => path.endsWith('.js'));
      expect(inputs.sort()).toEqual(['src/data.json', 'src/main.js', 'src/util.js']);
      expect(outputs.sort()).toEqual(['build/old.js', 'dist/app.js']);

      const application = await evidence(
        executeTool(analyzeJavascriptApplicationTool, { path: join(project, 'dist') }, quietToolContext()),
      );
      const record = await evidence(
        executeTool(compareSourceToBundleTool, { application, source_root: project }, quietToolContext()),
      );
      const result = record.normalized_result as {
        sources: { path: string | null; status: string }[];
        not_in_bundle: string[];
        not_compared: { path: string; reason: string }[];
      };
      expect(result.sources.map((s) => `${s.path} ${s.status}`).sort()).toEqual(
        inputs.map((path) => `${path} identical`).sort(),
      );
      const hand = Object.keys(FILES).filter((path) => path.startsWith('src/') && !inputs.includes(path));
      expect(result.not_in_bundle).toEqual(hand);
      expect(result.not_compared).toEqual(
        [
          ...outputs.map((path) => ({ path, reason: 'build-output' })),
          ...['esbuild.config.mjs', 'package-lock.json', 'package.json', 'tsconfig.json'].map((path) => ({
            path,
            reason: 'project-file',
          })),
        ].sort((a, b) => (a.path < b.path ? -1 : 1)),
      );
    });
  });
});
