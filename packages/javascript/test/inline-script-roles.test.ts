// A script written inside an HTML page runs in the renderer of the window that loads the page, as the
// page's `<script src>` scripts do: the page (whose node id its facts carry) gets the renderer role. The
// main script loads the page with `loadFile`, and the IPC channel the inline script sends on is the one
// main handles.
import { describe, expect, it } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';

const MAIN = `const { app, BrowserWindow, ipcMain } = require('electron');
ipcMain.on('page:ready', () => undefined);
app.whenReady().then(() => {
  const win = new BrowserWindow({ webPreferences: { nodeIntegration: true } });
  win.loadFile('index.html');
});
`;
const PAGE = `<!doctype html>
<html>
  <body>
    <script>require('electron').ipcRenderer.send('page:ready');</script>
  </body>
</html>
`;

describe('analyzeJavascriptApplication roles of inline scripts', () => {
  it('should give a page loaded into a window, with its inline scripts, the renderer role', async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'app', main: 'main.js' }));
      writeFileSync(join(tmp, 'main.js'), MAIN);
      writeFileSync(join(tmp, 'index.html'), PAGE);
      // Not loaded by any window: no role.
      writeFileSync(join(tmp, 'unused.html'), PAGE);
      const { result } = await analyzeJavascriptApplication(tmp);
      expect(result.roles.map((r) => `${r.role} ${r.node_id}`).sort()).toEqual([
        'main file:main.js',
        'renderer file:index.html',
      ]);
      expect(result.roles.find((r) => r.node_id === 'file:index.html')?.evidence).toMatch(
        /inline <script> of index\.html/,
      );
      // The inline script's facts carry the page's node id, so its channel is a renderer's.
      expect(result.ipc.map((i) => `${i.node_id} ${i.api} ${i.channel}`)).toContain(
        'file:index.html ipcRenderer.send page:ready',
      );
    });
  });
});
