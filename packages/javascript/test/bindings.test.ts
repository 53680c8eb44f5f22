import { describe, expect, it } from '@jest/globals';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { analyzeJavascriptApplication } from '@rea/javascript';
import type { JavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';

const MAIN = `const { app, BrowserWindow, ipcMain } = require('electron');
const fs = require('fs');
const path = require('path');
function save(note) {
  fs.writeFileSync(path.join(app.getPath('userData'), 'notes.json'), JSON.stringify(note));
}
ipcMain.handle('notes:save', (_event, note) => save(note));
ipcMain.on('notes:list', (event) => event.reply('notes', []));
app.whenReady().then(() => new BrowserWindow({ webPreferences: { preload: path.join(__dirname, 'preload.js') } }));
`;
const PRELOAD = `const { contextBridge, ipcRenderer } = require('electron');
contextBridge.exposeInMainWorld('notes', { save: (note) => ipcRenderer.invoke('notes:save', note) });
`;

const ipc = (result: JavascriptApplication) => result.ipc.map((i) => `${i.node_id} ${i.api} ${i.channel}`);

async function minified(dir: string, name: string, source: string): Promise<string> {
  writeFileSync(join(dir, 'src', name), source);
  const outfile = join(dir, 'app', name);
  await build({
    entryPoints: [join(dir, 'src', name)],
    bundle: true,
    platform: 'node',
    external: ['electron'],
    minify: true,
    outfile,
    logLevel: 'silent',
  });
  return readFileSync(outfile, 'utf8');
}

describe('analyzeJavascriptApplication following bindings of electron and fs', () => {
  it('should find the IPC channels and file writes of an esbuild-minified main and preload', async () => {
    await withTempDir(async (tmp) => {
      mkdirSync(join(tmp, 'src'));
      const main = await minified(tmp, 'main.js', MAIN);
      const preload = await minified(tmp, 'preload.js', PRELOAD);
      // The minifier renamed the bindings: nothing is spelled as the API any more.
      expect(main).not.toMatch(/ipcMain\.|fs\.writeFileSync/);
      expect(preload).not.toMatch(/ipcRenderer\.|contextBridge\./);
      const { result } = await analyzeJavascriptApplication(join(tmp, 'app'));
      // What the sources above call.
      expect(ipc(result)).toEqual([
        'file:main.js ipcMain.handle notes:save',
        'file:main.js ipcMain.on notes:list',
        'file:preload.js contextBridge.exposeInMainWorld notes',
        'file:preload.js ipcRenderer.invoke notes:save',
      ]);
      expect(result.effects.filter((e) => e.category === 'filesystem').map((e) => e.api)).toEqual(['fs.writeFileSync']);
      expect(result.unknowns.filter((u) => u.kind === 'ipc-binding-not-followed')).toEqual([]);
    });
  });

  it("should follow webpack's require of its externals in a production electron-main build", async () => {
    await withTempDir(async (tmp) => {
      mkdirSync(join(tmp, 'src'));
      writeFileSync(join(tmp, 'src', 'main.js'), MAIN);
      const { default: webpack } = await import('webpack');
      const compiler = webpack({
        mode: 'production',
        target: 'electron-main',
        context: join(tmp, 'src'),
        entry: './main.js',
        output: { path: join(tmp, 'app'), filename: 'main.js' },
        infrastructureLogging: { level: 'none' },
      });
      await new Promise<void>((resolve, reject) => {
        compiler.run((error, stats) => {
          compiler.close(() =>
            error || stats?.hasErrors() ? reject(error ?? new Error('webpack failed')) : resolve(),
          );
        });
      });
      // electron and fs are modules of the bundle that other modules reach by id.
      expect(readFileSync(join(tmp, 'app', 'main.js'), 'utf8')).toMatch(/exports\s*=\s*require\("electron"\)/);
      const { result } = await analyzeJavascriptApplication(join(tmp, 'app'));
      expect(ipc(result)).toEqual(['file:main.js ipcMain.handle notes:save', 'file:main.js ipcMain.on notes:list']);
      expect(result.effects.filter((e) => e.category === 'filesystem').map((e) => e.api)).toEqual(['fs.writeFileSync']);
      expect(result.unknowns.filter((u) => u.kind === 'ipc-binding-not-followed')).toEqual([]);
    });
  });

  it('should follow a required member, renamed destructuring, aliases and imports, and respect shadowing', async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(
        join(tmp, 'main.js'),
        [
          "require('electron').ipcMain.on('b:direct', () => 1);",
          "const { ipcMain: im } = require('electron');",
          "im.handle('b:renamed', () => 2);",
          "const e = require('electron'), r = e.ipcMain;",
          "r.on('b:alias', () => 3);",
          'function local(r) {',
          "  r.on('b:shadowed', () => 4);",
          '}',
          "const { writeFile: put } = require('node:fs/promises');",
          "put('/tmp/x', 'y');",
          '',
        ].join('\n'),
      );
      writeFileSync(
        join(tmp, 'renderer.mjs'),
        "import { ipcRenderer as bus } from 'electron';\nimport * as cp from 'node:child_process';\nbus.send('b:import', 1);\ncp.spawn('ls');\n",
      );
      const { result } = await analyzeJavascriptApplication(tmp);
      expect(ipc(result)).toEqual([
        'file:main.js ipcMain.on b:direct',
        'file:main.js ipcMain.handle b:renamed',
        'file:main.js ipcMain.on b:alias',
        'file:renderer.mjs ipcRenderer.send b:import',
      ]);
      expect(result.effects.map((e) => `${e.node_id} ${e.category} ${e.api}`)).toEqual([
        'file:main.js filesystem fs.promises.writeFile',
        'file:renderer.mjs process child_process.spawn',
      ]);
    });
  });

  it('should say so where electron is passed on or exported, and only there', async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(
        join(tmp, 'main.js'),
        "const { ipcMain: m } = require('electron');\nrequire('./handlers').register(m);\n",
      );
      // What webpack emits for an external electron: other modules reach it by id.
      writeFileSync(join(tmp, 'external.js'), "module.exports = require('electron');\n");
      // A reassigned fs binding is no longer fs (Node calls console.log here), and no IPC unknown.
      writeFileSync(
        join(tmp, 'reassign.js'),
        "let w = require('fs').writeFileSync;\nw('/tmp/a', 'b');\nw = console.log;\nw('/tmp/c', 'd');\n",
      );
      writeFileSync(join(tmp, 'plain.js'), "const { ipcMain } = require('electron');\nipcMain.on('plain', () => 0);\n");
      const { result, limitations } = await analyzeJavascriptApplication(tmp);
      expect(ipc(result)).toEqual(['file:plain.js ipcMain.on plain']);
      expect(
        limitations
          .filter((l) => l.kind === 'ipc-binding-not-followed')
          .map((l) => l.scope)
          .sort(),
      ).toEqual(['file:external.js', 'file:main.js']);
      expect(result.effects.map((e) => `${e.node_id} ${e.api} ${e.line}`)).toEqual([
        'file:reassign.js fs.writeFileSync 2',
      ]);
    });
  });
});
