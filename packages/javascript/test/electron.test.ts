import { describe, expect, it } from '@jest/globals';
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import type { JavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';
import { electronApp, electronAsar } from './helpers/fixtures.js';

const roles = (result: JavascriptApplication) => result.roles.map((r) => `${r.role} ${r.node_id}`);

describe('analyzeJavascriptApplication on an Electron application', () => {
  it('should find the roles, IPC channels, URLs, dynamic code and built-ins of an unpacked app', async () => {
    await withTempDir(async (tmp) => {
      const { result, coverage } = await analyzeJavascriptApplication(electronApp(tmp));
      expect(coverage).toEqual({ status: 'complete', reasons: [] });
      expect(result.input_format).toBe('directory');
      expect(result.electron).toBe(true);
      // index.html, loaded into the window, holds an inline script of its own besides renderer.js.
      expect(roles(result)).toEqual([
        'renderer file:index.html',
        'main file:main.js',
        'preload file:preload.js',
        'renderer file:renderer.js',
      ]);
      expect(result.ipc.map((i) => `${i.node_id} ${i.api} ${i.channel} ${i.line}`)).toEqual([
        'file:main.js ipcMain.handle notes:save 15',
        'file:main.js ipcMain.on telemetry 16',
        'file:preload.js contextBridge.exposeInMainWorld notes 3',
        'file:preload.js ipcRenderer.invoke notes:save 4',
        'file:preload.js ipcRenderer.send telemetry 5',
      ]);
      expect(result.hosts).toEqual(['api.example.com', 'telemetry.example.org']);
      expect(result.dynamic_code.map((d) => `${d.node_id} ${d.kind} ${d.line}:${d.column}`)).toEqual([
        'file:renderer.js function-constructor 5:15',
        'file:renderer.js string-timer 6:0',
      ]);
      const main = result.modules.find((m) => m.node_id === 'file:main.js')!;
      expect(main.builtins).toEqual(['fs', 'path']);
      expect(main.source_type).toBe('script');
      expect(
        result.edges.filter((e) => e.from === 'file:main.js').map((e) => [e.specifier, e.to, e.target_kind]),
      ).toEqual([
        ['electron', 'package:electron', 'package'],
        ['node:path', 'builtin:path', 'builtin'],
        ['fs', 'builtin:fs', 'builtin'],
        ['./lib/util', 'file:lib/util.js', 'module'],
      ]);
      expect(result.modules.find((m) => m.path === 'lib/util.js')!.exports).toEqual([
        { name: 'formatTitle', system: 'commonjs', value_kind: 'function', arity: 2 },
        { name: 'VERSION', system: 'commonjs', value_kind: 'value', arity: null },
      ]);
      expect(result.modules.find((m) => m.path === 'renderer.js')!.exports).toEqual([
        { name: 'load', system: 'esm', value_kind: 'function', arity: 0 },
      ]);
      expect(result.html_entries).toEqual([
        {
          node_id: 'file:index.html',
          path: 'index.html',
          scripts: [{ src: 'renderer.js', node_id: 'file:renderer.js' }],
          inline_script_count: 1,
          stylesheets: [{ href: 'style.css', node_id: 'file:style.css' }],
        },
      ]);
      expect(result.manifests).toEqual([
        {
          node_id: 'file:package.json',
          path: 'package.json',
          name: 'notes-app',
          version: '1.2.3',
          main: 'main.js',
          dependencies: { electron: '^39.0.0' },
        },
      ]);
      expect(result.assets.map((a) => `${a.kind} ${a.path}`).sort()).toEqual([
        'css style.css',
        'html index.html',
        'javascript lib/util.js',
        'javascript main.js',
        'javascript preload.js',
        'javascript renderer.js',
        'manifest package.json',
        'native-addon native/addon.node',
      ]);
      expect(result.strings.find((s) => s.value === 'notes:save')).toMatchObject({ node_id: 'file:main.js', line: 15 });
    });
  });

  it('should read a real ASAR with its unpacked native addon through @rea/artifact', async () => {
    await withTempDir(async (tmp) => {
      const archive = await electronAsar(tmp);
      const { result, subject } = await analyzeJavascriptApplication(archive);
      expect(subject.format).toBe('asar');
      expect(result.input_format).toBe('asar');
      // index.html, loaded into the window, holds an inline script of its own besides renderer.js.
      expect(roles(result)).toEqual([
        'renderer file:index.html',
        'main file:main.js',
        'preload file:preload.js',
        'renderer file:renderer.js',
      ]);
      expect(result.assets.find((a) => a.kind === 'native-addon')).toMatchObject({
        path: 'native/addon.node',
        unpacked: true,
      });
      expect(result.ipc).toHaveLength(5);
    });
  });

  it('should analyze app.asar nested in an application folder under its logical path', async () => {
    await withTempDir(async (tmp) => {
      const archive = await electronAsar(join(tmp, 'build'));
      const bundle = join(tmp, 'Notes', 'resources');
      mkdirSync(bundle, { recursive: true });
      renameSync(archive, join(bundle, 'app.asar'));
      renameSync(`${archive}.unpacked`, join(bundle, 'app.asar.unpacked'));
      const { result } = await analyzeJavascriptApplication(join(tmp, 'Notes'));
      expect(roles(result)).toEqual([
        'renderer file:resources/app.asar!/index.html',
        'main file:resources/app.asar!/main.js',
        'preload file:resources/app.asar!/preload.js',
        'renderer file:resources/app.asar!/renderer.js',
      ]);
      expect(result.edges.find((e) => e.specifier === './lib/util')?.to).toBe('file:resources/app.asar!/lib/util.js');
    });
  });

  it('should give the same result, node ids included, for the same application twice', async () => {
    await withTempDir(async (tmp) => {
      const app = electronApp(tmp);
      const first = await analyzeJavascriptApplication(app);
      const second = await analyzeJavascriptApplication(app);
      expect(second.result).toEqual(first.result);
    });
  });
});
