import { afterAll, expect } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJavascriptProvider } from '@rea/javascript';
import { describeProviderContract } from '@rea/contract-tests';
import type { CapabilityCheckContext } from '@rea/contract-tests';
import { writeAsar } from '@rea/test-helpers';

const work = mkdtempSync(join(tmpdir(), 'rea-contract-javascript-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A two-file Electron main process with one IPC handler. */
function application(): string {
  const dir = join(work, 'app');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"name":"probe","main":"main.js"}');
  writeFileSync(
    join(dir, 'main.js'),
    "const { ipcMain } = require('electron');\nipcMain.handle('probe:ping', () => 'pong');\n",
  );
  return dir;
}

const MAIN = "const { ipcMain } = require('electron');\nipcMain.handle('notes:save', () => true);\n";

/** The advertised examples, run on real fixtures: the paths and the retained reference stand for these. */
async function exampleInput(tool: string, input: unknown, c: CapabilityCheckContext): Promise<unknown> {
  const example = input as Record<string, unknown>;
  if (tool !== 'analyze_javascript_application') {
    const analysis = await c.runTool('analyze_javascript_application', { path: application(), detail: 'summary' });
    if (analysis.kind !== 'evidence') throw new Error('expected Evidence');
    // The summary's own reference stands for the analysis it retained, wherever the example names one.
    const ref = { kind: 'retained-evidence', evidence_id: analysis.record.evidence_id };
    const swap = (value: unknown): unknown =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? (value as { kind?: unknown }).kind === 'retained-evidence'
          ? ref
          : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swap(v)]))
        : value;
    const mapped = swap(example) as Record<string, unknown>;
    return 'source_root' in mapped ? { ...mapped, source_root: application() } : mapped;
  }
  if (String(example['path']).endsWith('.asar')) {
    const asar = join(work, 'app.asar');
    writeAsar(asar, { 'package.json': '{"name":"notes","main":"main.js"}', 'main.js': MAIN });
    return { ...example, path: asar };
  }
  const web = join(work, 'web-build');
  mkdirSync(web, { recursive: true });
  writeFileSync(join(web, 'index.html'), '<script src="app.js"></script>');
  writeFileSync(join(web, 'app.js'), "fetch('https://api.example.test/notes');\n");
  return { ...example, path: web };
}

describeProviderContract('javascript (applications)', () => createJavascriptProvider(), {
  exampleInput,
  capabilityProbes: {
    'javascript-application-analysis': async (c) => {
      const outcome = await c.runTool('analyze_javascript_application', { path: application() });
      if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
      expect(outcome.record.normalized_result).toMatchObject({
        electron: true,
        roles: [{ role: 'main', node_id: 'file:main.js' }],
        ipc: [{ api: 'ipcMain.handle', channel: 'probe:ping', line: 2 }],
      });
    },
    'javascript-feature-trace': async (c) => {
      const analysis = await c.runTool('analyze_javascript_application', { path: application() });
      if (analysis.kind !== 'evidence') throw new Error('expected Evidence');
      const seed = { kind: 'ipc_channel', value: 'probe:', match: 'prefix' };
      const outcome = await c.runTool('trace_application_feature', { application: analysis.record, seed });
      if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
      expect(outcome.record.normalized_result).toMatchObject({
        ipc_channels: [{ channel: 'probe:ping', sites: [{ node_id: 'file:main.js', api: 'ipcMain.handle', line: 2 }] }],
      });
    },
    'javascript-version-comparison': async (c) => {
      const analyses = [];
      for (const _ of [1, 2]) {
        const analysis = await c.runTool('analyze_javascript_application', { path: application() });
        if (analysis.kind !== 'evidence') throw new Error('expected Evidence');
        analyses.push(analysis.record);
      }
      const outcome = await c.runTool('compare_application_versions', { before: analyses[0], after: analyses[1] });
      if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
      expect(outcome.record.normalized_result).toMatchObject({
        modules: { added: [], removed: [], changed: [], unknown: [], unchanged: 1 },
      });
    },
  },
});
