import { describe, expect, it } from '@jest/globals';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import * as asar from '@electron/asar';
import { analyzeJavascriptApplication } from '@rea/javascript';
import type { JavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';

const SPECIFIERS = ['./native/addon.node', './native/addon'];

function writeApp(dir: string): string {
  const app = join(dir, 'app');
  mkdirSync(join(app, 'native'), { recursive: true });
  writeFileSync(join(app, 'main.js'), SPECIFIERS.map((s) => `require(${JSON.stringify(s)});\n`).join(''));
  // Never loaded: the analysis and require.resolve only look the file up.
  writeFileSync(join(app, 'native', 'addon.node'), Buffer.from('\u007fELF-stand-in'));
  return app;
}

/** The file Node.js itself resolves each specifier of main.js to, as a node id. */
function nodeAnswers(app: string): [string, string][] {
  const require = createRequire(join(app, 'main.js'));
  return SPECIFIERS.map((s) => [s, `file:${relative(app, require.resolve(s)).split('\\').join('/')}`]);
}

const edges = (result: JavascriptApplication) =>
  result.edges.filter((e) => e.from === 'file:main.js').map((e) => [e.specifier, e.to]);

describe('analyzeJavascriptApplication on a required native addon', () => {
  it('should point the require edge at the .node file Node.js loads, with the graph complete', async () => {
    await withTempDir(async (tmp) => {
      const app = writeApp(tmp);
      const { result } = await analyzeJavascriptApplication(app);
      expect(nodeAnswers(app)).toEqual(SPECIFIERS.map((s) => [s, 'file:native/addon.node']));
      expect(edges(result)).toEqual(nodeAnswers(app));
      expect(result.edges.every((e) => e.target_kind === 'module')).toBe(true);
      expect(result.phases.find((p) => p.phase === 'graph')).toEqual({
        phase: 'graph',
        status: 'complete',
        reasons: [],
      });
    });
  });

  it('should resolve it inside an ASAR whose .node files are unpacked', async () => {
    await withTempDir(async (tmp) => {
      const app = writeApp(tmp);
      const archive = join(tmp, 'app.asar');
      await asar.createPackageWithOptions(app, archive, { unpack: '*.node' });
      const { result } = await analyzeJavascriptApplication(archive);
      expect(result.assets.find((a) => a.kind === 'native-addon')).toMatchObject({
        node_id: 'file:native/addon.node',
        unpacked: true,
      });
      expect(edges(result)).toEqual(nodeAnswers(app));
      expect(result.phases.find((p) => p.phase === 'graph')?.status).toBe('complete');
    });
  });
});
