import { beforeAll, afterAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import {
  analyzeJavascriptApplicationTool,
  compareApplicationVersionsTool,
  compareJavascriptExportShapesTool,
} from '@rea/javascript';
import type { VersionComparison } from '@rea/javascript';
import { quietToolContext } from '@rea/test-helpers';
import { electronApp, electronAsar } from './helpers/fixtures.js';

async function evidence(outcome: ReturnType<typeof executeTool>): Promise<EvidenceRecord> {
  const result = await outcome;
  if (result.kind !== 'evidence') throw new Error('expected Evidence');
  return result.record;
}

const analyze = (path: string) => evidence(executeTool(analyzeJavascriptApplicationTool, { path }, quietToolContext()));

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  expect(text).toContain(from);
  writeFileSync(file, text.replace(from, to));
}

let tmp: string;
let v2: string;
let before: EvidenceRecord;
let after: EvidenceRecord;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rea-js-compare-'));
  const formatter = 'module.exports = function format(text) {\n  return text.trim();\n};\n';
  const v1 = electronApp(join(tmp, 'v1'));
  writeFileSync(join(v1, 'lib', 'format.js'), formatter);
  v2 = electronApp(join(tmp, 'v2'));
  // Version 2: util.js gains a parameter and an export and loses one; main.js reports to another host
  // on another channel; the manifest moves electron and adds a dependency; format.js moves unchanged.
  edit(join(v2, 'lib', 'util.js'), 'formatTitle(name, suffix)', 'formatTitle(name, suffix, locale)');
  edit(join(v2, 'lib', 'util.js'), "exports.VERSION = '1.2.3';", 'exports.slug = (text) => text.toLowerCase();');
  edit(join(v2, 'main.js'), "ipcMain.on('telemetry'", "ipcMain.on('metrics'");
  edit(join(v2, 'main.js'), 'telemetry.example.org', 'metrics.example.org');
  edit(join(v2, 'package.json'), '"electron": "^39.0.0"', '"electron": "^40.0.0", "left-pad": "1.3.0"');
  writeFileSync(join(v2, 'lib', 'extra.js'), "exports.extra = () => require('os').hostname();\n");
  mkdirSync(join(v2, 'lib', 'text'));
  writeFileSync(join(v2, 'lib', 'text', 'format.js'), formatter);
  [before, after] = [await analyze(v1), await analyze(v2)];
}, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('compare_application_versions', () => {
  it('should report modules added, changed and moved, export shapes, dependencies, hosts and channels', async () => {
    const record = await evidence(executeTool(compareApplicationVersionsTool, { before, after }, quietToolContext()));
    const result = record.normalized_result as unknown as VersionComparison;
    expect(record.evidence_links).toEqual([before.evidence_id, after.evidence_id]);
    expect(result.modules.added).toEqual(['file:lib/extra.js']);
    expect(result.modules.removed).toEqual([]);
    expect(result.modules.unknown).toEqual([]);
    expect(result.modules.changed).toEqual([
      { before: 'file:lib/util.js', after: 'file:lib/util.js', matched_by: 'path', changes: ['content', 'exports'] },
      { before: 'file:main.js', after: 'file:main.js', matched_by: 'path', changes: ['content'] },
      { before: 'file:lib/format.js', after: 'file:lib/text/format.js', matched_by: 'content', changes: ['path'] },
    ]);
    // preload.js and renderer.js.
    expect(result.modules.unchanged).toBe(2);
    expect(result.exports).toEqual([
      {
        before: 'file:lib/util.js',
        after: 'file:lib/util.js',
        added: [{ name: 'slug', system: 'commonjs', value_kind: 'function', arity: 1 }],
        removed: [{ name: 'VERSION', system: 'commonjs', value_kind: 'value', arity: null }],
        changed: [
          {
            name: 'formatTitle',
            system: 'commonjs',
            before: { name: 'formatTitle', system: 'commonjs', value_kind: 'function', arity: 2 },
            after: { name: 'formatTitle', system: 'commonjs', value_kind: 'function', arity: 3 },
          },
        ],
        unchanged: 0,
      },
    ]);
    expect(result.dependencies).toEqual([
      { manifest: 'file:package.json', name: 'electron', before: '^39.0.0', after: '^40.0.0' },
      { manifest: 'file:package.json', name: 'left-pad', before: null, after: '1.3.0' },
    ]);
    expect(result.hosts).toEqual({ added: ['metrics.example.org'], removed: ['telemetry.example.org'] });
    // preload.js still sends on "telemetry", so only "metrics" is new.
    expect(result.ipc_channels).toEqual({ added: ['metrics'], removed: [] });
    expect(result.assets).toEqual({
      added: ['lib/extra.js', 'lib/text/format.js'],
      removed: ['lib/format.js'],
      changed: ['lib/util.js', 'main.js', 'package.json'],
      unknown: [],
    });
    expect(result.strings.added).toContain('metrics');
    expect(result.strings.removed).toContain('1.2.3');
    expect(result.truncated).toBe(false);
    expect(record.coverage).toEqual({ status: 'complete', reasons: [] });
  });

  it('should report nothing changed between two analyses of the same version', async () => {
    const again = await analyze(v2);
    const record = await evidence(
      executeTool(compareApplicationVersionsTool, { before: after, after: again }, quietToolContext()),
    );
    const result = record.normalized_result as unknown as VersionComparison;
    expect(result.modules).toEqual({ added: [], removed: [], changed: [], unknown: [], unchanged: 6 });
    expect([result.exports, result.dependencies, result.assets.changed, result.strings.added]).toEqual([
      [],
      [],
      [],
      [],
    ]);
  });
});

describe('compare_javascript_export_shapes', () => {
  it('should diff the manifest main modules by default and named modules on request', async () => {
    const main = await evidence(
      executeTool(
        compareJavascriptExportShapesTool,
        { before: { application: before }, after: { application: after } },
        quietToolContext(),
      ),
    );
    // main.js exports nothing in either version.
    expect(main.normalized_result).toEqual({
      before_module: 'file:main.js',
      after_module: 'file:main.js',
      compatible: true,
      added: [],
      removed: [],
      changed: [],
      unchanged: 0,
    });
    const util = await evidence(
      executeTool(
        compareJavascriptExportShapesTool,
        {
          before: { application: before, module: 'lib/util.js' },
          after: { application: after, module: 'file:lib/util.js' },
        },
        quietToolContext(),
      ),
    );
    expect(util.normalized_result).toMatchObject({
      compatible: false,
      added: [{ name: 'slug' }],
      removed: [{ name: 'VERSION' }],
      changed: [{ name: 'formatTitle', before: { arity: 2 }, after: { arity: 3 } }],
      unchanged: 0,
    });
    expect(util.evidence_links).toEqual([before.evidence_id, after.evidence_id]);
  });

  it('should refuse a module no analysis names with not_found', async () => {
    const error = await executeTool(
      compareJavascriptExportShapesTool,
      { before: { application: before, module: 'lib/absent.js' }, after: { application: after } },
      quietToolContext(),
    ).catch((e: unknown) => e);
    expect(isReaError(error) && [error.code, error.details['reason']]).toEqual(['not_found', 'module-not-found']);
  });

  it('should say a module left out for its contradicted bytes was not analyzed, not that it is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rea-js-contradicted-'));
    try {
      const archive = await electronAsar(dir);
      const intact = await analyze(archive);
      const bytes = readFileSync(archive);
      bytes.write('NOTES', bytes.indexOf('notes:save'), 'latin1');
      writeFileSync(archive, bytes);
      const tampered = await evidence(
        executeTool(
          analyzeJavascriptApplicationTool,
          { path: archive, integrity_policy: 'record-and-continue' },
          quietToolContext(),
        ),
      );
      for (const after of [{ application: tampered }, { application: tampered, module: 'main.js' }]) {
        const error = await executeTool(
          compareJavascriptExportShapesTool,
          { before: { application: intact, ...(after.module ? { module: 'main.js' } : {}) }, after },
          quietToolContext(),
        ).catch((e: unknown) => e);
        expect(isReaError(error) && [error.code, error.details['reason'], error.details['path']]).toEqual([
          'artifact_integrity_mismatch',
          'module-not-analyzed',
          'main.js',
        ]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
