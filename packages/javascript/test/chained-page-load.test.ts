// `new BrowserWindow({…}).loadFile('index.html')` and `.loadURL(…)` chained straight onto `new` load a
// page as `win.loadFile(…)` does. Node.js is the reference for which page each window loads: the main
// script runs against a stand-in electron whose windows print the file or URL they are given, and the
// scripts of those pages (and no other) are the renderers.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';

/** Windows that print each page they load, as a file path. */
const STAND_IN = `const path = require('path');
const loaded = [];
class BrowserWindow {
  constructor(options) { this.options = options; }
  loadURL(url) { loaded.push(url.startsWith('file:') ? require('url').fileURLToPath(url) : url); return Promise.resolve(); }
  loadFile(file) { loaded.push(path.resolve(file)); return Promise.resolve(); }
}
process.on('exit', () => console.log(JSON.stringify(loaded)));
module.exports = { BrowserWindow, app: { whenReady: () => ({ then: (f) => f() }) } };
`;

const MAIN = `const path = require('path');
const { app, BrowserWindow } = require('electron');
app.whenReady().then(() => {
  new BrowserWindow({ width: 800, height: 600 }).loadFile(path.join(__dirname, 'main-window', 'index.html'));
  new BrowserWindow({ show: false })['loadURL'](\`file://\${__dirname}/settings/index.html\`);
});
`;

const PAGES = ['main-window', 'settings', 'unused'];

describe('analyzeJavascriptApplication pages loaded by a window made in place', () => {
  it('should make the scripts of the pages Node.js loads renderers, and only those', async () => {
    await withTempDir(async (tmp) => {
      mkdirSync(join(tmp, 'node_modules', 'electron'), { recursive: true });
      writeFileSync(join(tmp, 'node_modules', 'electron', 'index.js'), STAND_IN);
      const root = join(tmp, 'root');
      mkdirSync(root, { recursive: true });
      writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'app', main: 'main.js' }));
      writeFileSync(join(root, 'main.js'), MAIN);
      for (const page of PAGES) {
        mkdirSync(join(root, page), { recursive: true });
        writeFileSync(join(root, page, 'index.html'), '<script src="page.js"></script>\n');
        writeFileSync(join(root, page, 'page.js'), 'document.title = "page";\n');
      }
      const loaded = JSON.parse(
        execFileSync(process.execPath, [join(root, 'main.js')], { cwd: tmp, encoding: 'utf8' }),
      ) as string[];
      const renderers = loaded.map((file) => `renderer file:${relative(root, resolve(file, '..', 'page.js'))}`).sort();
      expect(renderers).toHaveLength(2);
      const { result } = await analyzeJavascriptApplication(root);
      expect(result.roles.filter((r) => r.role === 'renderer').map((r) => `${r.role} ${r.node_id}`)).toEqual(renderers);
      expect(result.modules.find((m) => m.path === 'main.js')?.roles).toEqual(['main']);
    });
  });
});
