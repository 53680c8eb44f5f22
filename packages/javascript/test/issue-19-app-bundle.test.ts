import { describe, expect, it } from '@jest/globals';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';
import { electronApp, electronAsar } from './helpers/fixtures.js';

/** A macOS application bundle's frame: Info.plist and an executable stand-in. */
function appFrame(root: string): string {
  const contents = join(root, 'Notes.app', 'Contents');
  mkdirSync(join(contents, 'MacOS'), { recursive: true });
  mkdirSync(join(contents, 'Resources'), { recursive: true });
  writeFileSync(join(contents, 'Info.plist'), '<?xml version="1.0"?><plist><dict></dict></plist>\n');
  writeFileSync(join(contents, 'MacOS', 'Notes'), Buffer.from('\u00cf\u00fa\u00ed\u00fe-stand-in'));
  return join(root, 'Notes.app');
}

describe('analyzeJavascriptApplication on a macOS .app bundle', () => {
  it('should analyze Contents/Resources/app.asar with its roles and unpacked addon', async () => {
    await withTempDir(async (tmp) => {
      const app = appFrame(tmp);
      await electronAsar(join(tmp, 'build'), 'app.asar');
      cpSync(join(tmp, 'build', 'app.asar'), join(app, 'Contents', 'Resources', 'app.asar'));
      cpSync(join(tmp, 'build', 'app.asar.unpacked'), join(app, 'Contents', 'Resources', 'app.asar.unpacked'), {
        recursive: true,
      });
      const { result, coverage } = await analyzeJavascriptApplication(app);
      const inner = 'Contents/Resources/app.asar!/';
      expect(coverage.status).toBe('complete');
      expect(result.electron).toBe(true);
      expect(result.roles.map((r) => `${r.role} ${r.node_id}`)).toEqual([
        `renderer file:${inner}index.html`,
        `main file:${inner}main.js`,
        `preload file:${inner}preload.js`,
        `renderer file:${inner}renderer.js`,
      ]);
      expect(result.ipc.filter((i) => i.channel === 'notes:save').map((i) => i.node_id)).toEqual([
        `file:${inner}main.js`,
        `file:${inner}preload.js`,
      ]);
      expect(result.assets.filter((a) => a.kind === 'native-addon').map((a) => [a.path, a.unpacked])).toEqual([
        [`${inner}native/addon.node`, true],
      ]);
    });
  });

  it('should analyze an unpacked Contents/Resources/app folder', async () => {
    await withTempDir(async (tmp) => {
      const app = appFrame(tmp);
      cpSync(electronApp(join(tmp, 'build')), join(app, 'Contents', 'Resources', 'app'), { recursive: true });
      const { result } = await analyzeJavascriptApplication(app);
      expect(result.roles.map((r) => `${r.role} ${r.node_id}`)).toEqual([
        'renderer file:Contents/Resources/app/index.html',
        'main file:Contents/Resources/app/main.js',
        'preload file:Contents/Resources/app/preload.js',
        'renderer file:Contents/Resources/app/renderer.js',
      ]);
    });
  });
});
