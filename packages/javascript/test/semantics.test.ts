import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isReaError } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import {
  analyzeJavascriptApplicationTool,
  compareSourceToBundleTool,
  traceJavascriptSemanticsTool,
} from '@rea/javascript';
import type { ModuleSemantics } from '@rea/javascript';
import { quietToolContext } from '@rea/test-helpers';
import { bundleSources, electronApp, esbuildBundle } from './helpers/fixtures.js';

async function evidence(outcome: ReturnType<typeof executeTool>): Promise<EvidenceRecord> {
  const result = await outcome;
  if (result.kind !== 'evidence') throw new Error('expected Evidence');
  return result.record;
}

const analyze = (path: string) => evidence(executeTool(analyzeJavascriptApplicationTool, { path }, quietToolContext()));
const semantics = async (application: EvidenceRecord, module: string) =>
  (await evidence(executeTool(traceJavascriptSemanticsTool, { application, module }, quietToolContext())))
    .normalized_result as unknown as ModuleSemantics;

let tmp: string;
let app: EvidenceRecord;
let bundle: EvidenceRecord;
let sources: string;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rea-js-semantics-'));
  const root = electronApp(join(tmp, 'electron'));
  writeFileSync(
    join(root, 'ui.js'),
    "document.body.innerHTML = '<b>hi</b>';\nconst a = document.querySelector('#a');\n",
  );
  app = await analyze(root);
  sources = bundleSources(join(tmp, 'web'));
  const out = await esbuildBundle(join(tmp, 'web'), { out: 'app.js', sourcemap: true, sources });
  bundle = await analyze(dirname(out));
}, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('trace_javascript_semantics', () => {
  it("should list a main script's imports, side effects, IPC sites and URLs", async () => {
    const main = await semantics(app, 'main.js');
    expect(main).toMatchObject({
      node_id: 'file:main.js',
      kind: 'file',
      file: 'file:main.js',
      builtins: ['fs', 'path'],
    });
    expect(main.calls.map((c) => `${c.kind} ${c.to}`)).toEqual([
      'require package:electron',
      'require builtin:path',
      'require builtin:fs',
      'require file:lib/util.js',
    ]);
    expect(main.called_by).toEqual([]);
    expect(main.effects.map((e) => `${e.category} ${e.api} ${e.line}`)).toEqual([
      'filesystem fs.promises.writeFile 15',
      'network fetch 16',
    ]);
    expect(main.ipc).toEqual([
      { api: 'ipcMain.handle', channel: 'notes:save', line: 15 },
      { api: 'ipcMain.on', channel: 'telemetry', line: 16 },
    ]);
    expect(main.urls).toEqual([{ url: 'https://telemetry.example.org/collect?v=1', line: 16 }]);
    const util = await semantics(app, 'file:lib/util.js');
    expect(util.called_by).toEqual([{ from: 'file:main.js', specifier: './lib/util', kind: 'require', line: 4 }]);
    expect(util.exports.map((e) => `${e.name} ${e.value_kind} ${e.arity}`)).toEqual([
      'formatTitle function 2',
      'VERSION value null',
    ]);
    const ui = await semantics(app, 'ui.js');
    expect(ui.effects.map((e) => `${e.category} ${e.api} ${e.line}`)).toEqual([
      'dom innerHTML 1',
      'dom document.querySelector 2',
    ]);
  });

  it('should trace one bundled module of an esbuild bundle', async () => {
    const legacy = await semantics(bundle, 'legacy.cjs');
    expect(legacy).toMatchObject({ node_id: 'bundled:app.js#legacy.cjs', kind: 'bundled', file: 'file:app.js' });
    expect(legacy.calls.map((c) => `${c.kind} ${c.to}`)).toEqual(['require builtin:os']);
    expect(legacy.called_by.map((c) => `${c.from} ${c.kind}`)).toEqual(['bundled:app.js#entry.js bundler-require']);
  });

  it('should refuse an unknown module with not_found and a source-map source with invalid_request', async () => {
    const absent = await executeTool(
      traceJavascriptSemanticsTool,
      { application: app, module: 'absent.js' },
      quietToolContext(),
    ).catch((e: unknown) => e);
    expect(isReaError(absent) && absent.code).toBe('not_found');
    const source = await executeTool(
      traceJavascriptSemanticsTool,
      { application: bundle, module: '../src/greet.js' },
      quietToolContext(),
    ).catch((e: unknown) => e);
    expect(isReaError(source) && [source.code, source.details['reason']]).toEqual(['invalid_request', 'source-module']);
  });
});

describe('compare_source_to_bundle', () => {
  it('should tell identical, differing and missing sources and tree files no map names', async () => {
    const tree = join(tmp, 'checkout');
    mkdirSync(tree);
    writeFileSync(join(tree, 'entry.js'), (await import('node:fs')).readFileSync(join(sources, 'entry.js')));
    writeFileSync(join(tree, 'greet.js'), 'export function greet(name) {\n  return `hi ${name}`;\n}\n');
    writeFileSync(join(tree, 'extra.js'), 'export const extra = 1;\n');
    mkdirSync(join(tree, 'node_modules'));
    writeFileSync(join(tree, 'node_modules', 'dep.js'), 'module.exports = 1;\n');
    const record = await evidence(
      executeTool(compareSourceToBundleTool, { application: bundle, source_root: tree }, quietToolContext()),
    );
    expect(record.normalized_result).toEqual({
      application_evidence_id: bundle.evidence_id,
      sources: [
        { node_id: 'source:app.js#../src/entry.js', source: '../src/entry.js', status: 'identical', path: 'entry.js' },
        { node_id: 'source:app.js#../src/greet.js', source: '../src/greet.js', status: 'differs', path: 'greet.js' },
        { node_id: 'source:app.js#../src/legacy.cjs', source: '../src/legacy.cjs', status: 'missing', path: null },
      ],
      not_in_bundle: ['extra.js'],
      not_compared: [],
      truncated: false,
    });
    expect(record.evidence_links).toEqual([bundle.evidence_id]);
  });

  it('should refuse a missing source tree with not_found', async () => {
    const error = await executeTool(
      compareSourceToBundleTool,
      { application: bundle, source_root: join(tmp, 'absent') },
      quietToolContext(),
    ).catch((e: unknown) => e);
    expect(isReaError(error) && [error.code, error.details['reason']]).toEqual(['not_found', 'missing']);
  });
});
