// A name declared without a value and assigned `require("electron")` later (`var o; o = require("electron")`,
// what minifiers and lazy initialisers write) holds electron as surely as `const o = require("electron")`.
// Node.js is the reference: the main script runs against a stand-in electron that prints each channel
// registered, and those are the channels the analysis must list.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeJavascriptApplication } from '@rea/javascript';
import { withTempDir } from '@rea/test-helpers';

/** Records every channel given to ipcMain or ipcRenderer, in call order. */
const STAND_IN = `const seen = [];
const record = (api) => (channel) => { seen.push(api + ' ' + channel); };
const ipc = (name) => ({ on: record(name + '.on'), handle: record(name + '.handle'), send: record(name + '.send') });
process.on('exit', () => console.log(JSON.stringify(seen)));
module.exports = { ipcMain: ipc('ipcMain'), ipcRenderer: ipc('ipcRenderer') };
`;

const MAIN = [
  // No callee below is spelled as the API: only what the names hold makes them IPC.
  'var o;',
  "o = require('electron');",
  'var i = o.ipcMain;',
  "i.handle('assigned:declared-first', () => 1);",
  // Minified: several names declared at once, assigned in a sequence, one from the other.
  'var e, t;',
  "e = require('electron'), t = e.ipcMain;",
  "t.on('assigned:sequence', () => 2);",
  // A lazy initialiser: the only value the name is ever given is electron's ipcRenderer.
  'let r;',
  "function bus() { return r || (r = require('electron').ipcRenderer); }",
  "bus(); r.send('assigned:lazy', 3);",
  // Hoisting: the assignment comes before the declaration.
  "h = require('electron').ipcMain;",
  "h.on('assigned:hoisted', () => 4);",
  'var h;',
  '',
].join('\n');

const channels = (result: { ipc: { api: string; channel: string | null }[] }) =>
  result.ipc.map((i) => `${i.api} ${i.channel}`);

describe('analyzeJavascriptApplication following a require assigned after its declaration', () => {
  it('should list the channels Node.js registers through names assigned require("electron")', async () => {
    await withTempDir(async (tmp) => {
      mkdirSync(join(tmp, 'node_modules', 'electron'), { recursive: true });
      writeFileSync(join(tmp, 'node_modules', 'electron', 'index.js'), STAND_IN);
      mkdirSync(join(tmp, 'app'));
      writeFileSync(join(tmp, 'app', 'main.js'), MAIN);
      const reference = JSON.parse(
        execFileSync(process.execPath, [join(tmp, 'app', 'main.js')], { encoding: 'utf8' }),
      ) as string[];
      expect(reference).toHaveLength(4);
      const { result, limitations } = await analyzeJavascriptApplication(join(tmp, 'app'));
      expect(channels(result)).toEqual(reference);
      expect(limitations.filter((l) => l.kind === 'ipc-binding-not-followed')).toEqual([]);
    });
  });

  it('should still say electron is not followed where the name is also given another value', async () => {
    await withTempDir(async (tmp) => {
      writeFileSync(
        join(tmp, 'main.js'),
        "var m;\nm = require('electron').ipcMain;\nif (process.env.X) m = globalThis.other;\nm.on('two-values', () => 0);\n",
      );
      const { result, limitations } = await analyzeJavascriptApplication(tmp);
      expect(channels(result)).toEqual([]);
      expect(limitations.filter((l) => l.kind === 'ipc-binding-not-followed').map((l) => l.scope)).toEqual([
        'file:main.js',
      ]);
    });
  });
});
