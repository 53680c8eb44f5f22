// `loadURL(`file://${__dirname}/pages/index.html`)` and the same page built with path.join or `+` load a
// page relative to the script, as a string literal does. Node.js is the reference for which page each
// window loads: the main script runs against a stand-in electron whose windows print the URL or file
// they are given, and the scripts of those pages (and no other) are the renderers.
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
  loadURL(url) { loaded.push(url.startsWith('file:') ? require('url').fileURLToPath(url) : url); }
  loadFile(file) { loaded.push(path.resolve(file)); }
}
process.on('exit', () => console.log(JSON.stringify(loaded)));
module.exports = { BrowserWindow, app: { whenReady: () => ({ then: (f) => f() }) } };
`;

const MAIN = `const path = require('path');
const { app, BrowserWindow } = require('electron');
app.whenReady().then(() => {
  const a = new BrowserWindow();
  a.loadURL(\`file://\${__dirname}/pages/index.html\`);
  const b = new BrowserWindow();
  b.loadURL('file://' + path.join(__dirname, '..', 'ui', 'settings', 'index.html'));
  const c = new BrowserWindow();
  c.loadFile(\`\${__dirname}/about/index.html\`);
});
`;

const PAGES = ['app/pages', 'ui/settings', 'app/about', 'app/unused'];

describe('analyzeJavascriptApplication pages loaded through templates and path.join', () => {
  it('should make the scripts of the pages Node.js loads renderers, and only those', async () => {
    await withTempDir(async (tmp) => {
      mkdirSync(join(tmp, 'node_modules', 'electron'), { recursive: true });
      writeFileSync(join(tmp, 'node_modules', 'electron', 'index.js'), STAND_IN);
      const root = join(tmp, 'root');
      mkdirSync(join(root, 'app'), { recursive: true });
      writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'app', main: 'app/main.js' }));
      writeFileSync(join(root, 'app', 'main.js'), MAIN);
      // Every page is named index.html: only its path tells them apart.
      for (const page of PAGES) {
        mkdirSync(join(root, page), { recursive: true });
        writeFileSync(join(root, page, 'index.html'), '<script src="page.js"></script>\n');
        writeFileSync(join(root, page, 'page.js'), 'document.title = "page";\n');
      }
      const loaded = JSON.parse(
        execFileSync(process.execPath, [join(root, 'app', 'main.js')], { cwd: tmp, encoding: 'utf8' }),
      ) as string[];
      const renderers = loaded.map((file) => `renderer file:${relative(root, resolve(file, '..', 'page.js'))}`).sort();
      expect(renderers).toHaveLength(3);
      const { result } = await analyzeJavascriptApplication(root);
      expect(result.roles.filter((r) => r.role === 'renderer').map((r) => `${r.role} ${r.node_id}`)).toEqual(renderers);
    });
  });
});
