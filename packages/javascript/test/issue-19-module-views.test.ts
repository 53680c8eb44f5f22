// inspect_analysis_view over an application analysis: one "all_modules" collection lists the scripts,
// the modules bundled into them and the sources their maps name, in pages; one module is found by its
// path (as recorded, or without "./" and the map's scheme) or its exact node_id, keeping its recorded
// properties. Built at test time: a webpack development build with its source map, and a plain script.
import { beforeAll, afterAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isReaError, selectAnalysisView } from '@rea/evidence';
import type { EvidenceRecord, ItemView, PageView, SummaryView } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import { analyzeJavascriptApplicationTool } from '@rea/javascript';
import type { JavascriptApplication } from '@rea/javascript';
import { quietToolContext } from '@rea/test-helpers';
import { BUNDLE_SOURCES, webpackBundle } from './helpers/fixtures.js';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
const caught = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (isReaError(error)) return error;
  }
  throw new Error('expected a ReaError');
};

let tmp: string;
let app: string;
let record: EvidenceRecord;
let result: JavascriptApplication;
/** The sources the bundle's map names, read from the map itself. */
let mapSources: string[];

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'rea-js-views-'));
  app = join(tmp, 'app');
  mkdirSync(app);
  await webpackBundle(app, { out: 'dev.js', mode: 'development', sourceMap: true });
  writeFileSync(join(app, 'tool.js'), "const fs = require('fs');\nfs.readFileSync('x');\n");
  mapSources = (JSON.parse(readFileSync(join(app, 'dist', 'dev.js.map'), 'utf8')) as { sources: string[] }).sources;
  const outcome = await executeTool(analyzeJavascriptApplicationTool, { path: app }, quietToolContext());
  if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
  record = outcome.record;
  result = record.normalized_result as JavascriptApplication;
}, 120_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const page = (offset: number, limit: number) =>
  selectAnalysisView(record, { view: 'page', collection: 'all_modules', offset, limit }) as PageView;
const item = (collection: string, id: string) =>
  selectAnalysisView(record, { view: 'item', collection, id }) as ItemView;
type Row = Record<string, unknown>;

describe('module pages of an application analysis', () => {
  it('should list every script, bundled module and source module once, each file followed by what it holds', () => {
    const summary = selectAnalysisView(record, { view: 'summary' }) as SummaryView;
    const total = result.modules.length + result.bundled_modules.length + result.source_modules.length;
    expect(summary.summary.collections['all_modules']).toBe(total);
    const rows = page(0, 1000).items as Row[];
    expect(rows.map((r) => [r['module_kind'], r['path']])).toEqual([
      ['file', 'dist/dev.js'],
      ...['./greet.js', './legacy.cjs', 'node:crypto', 'os'].map((id) => ['bundled', id]),
      ...result.source_modules.map((m) => ['source', m.source]),
      ['file', 'tool.js'],
    ]);
    // One source row for each source the map names.
    expect(result.source_modules).toHaveLength(mapSources.length);
    // The file rows carry their asset's size and hash: those of the bytes on disk.
    const dev = readFileSync(join(app, 'dist', 'dev.js'));
    expect(rows[0]).toMatchObject({ node_id: 'file:dist/dev.js', size: dev.length, sha256: sha256(dev) });
    // Stable pages of two follow one another to the same list.
    const paged: unknown[] = [];
    for (let offset: number | null = 0; offset !== null;) {
      const view = page(offset, 2);
      paged.push(...view.items!);
      offset = view.coverage.next_offset;
    }
    expect(paged).toEqual(rows);
  });

  it('should find one module by its recorded path, keeping its recorded properties', () => {
    const bundled = item('all_modules', './greet.js');
    expect(bundled.matched_by).toBe('path');
    const recorded = result.bundled_modules.find((m) => m.module_id === './greet.js')!;
    expect(bundled.item).toEqual({ module_kind: 'bundled', path: './greet.js', ...recorded });
    const file = item('modules', 'tool.js');
    expect([file.matched_by, (file.item as Row)['node_id']]).toEqual(['path', 'file:tool.js']);
  });

  it('should find a source by its recorded path, and its content is the source file', () => {
    expect(mapSources).toContain('webpack:///./legacy.cjs');
    const source = item('all_modules', 'webpack:///legacy.cjs');
    expect(source.matched_by).toBe('path');
    expect(source.item).toMatchObject({ module_kind: 'source', node_id: 'source:dist/dev.js#webpack:///legacy.cjs' });
    expect((source.item as Row)['content_sha256']).toBe(
      sha256(readFileSync(join(BUNDLE_SOURCES, 'legacy.cjs'), 'utf8')),
    );
  });

  it('should refuse a path two modules answer to, naming their node ids, and take the exact node_id', () => {
    // Without "./" and the scheme, the bundled module and the source it came from have one path.
    for (const typed of ['greet.js', 'webpack:///./greet.js']) {
      const error = caught(() => item('all_modules', typed));
      expect(error.code).toBe('invalid_request');
      expect(error.details).toMatchObject({
        reason: 'ambiguous-item',
        node_ids: ['bundled:dist/dev.js#./greet.js', 'source:dist/dev.js#webpack:///greet.js'],
      });
    }
    const exact = item('all_modules', 'source:dist/dev.js#webpack:///greet.js');
    expect([exact.matched_by, (exact.item as Row)['module_kind']]).toEqual(['node_id', 'source']);
  });

  it('should answer not_found for a path no module has, and offer all_modules only for applications', () => {
    expect(caught(() => item('all_modules', 'nowhere.js')).details).toMatchObject({ reason: 'missing-item' });
    const other = { ...record, operation: 'inspect_artifact' } as EvidenceRecord;
    const error = caught(() => selectAnalysisView(other, { view: 'page', collection: 'all_modules' }));
    expect([error.code, (error.details['available'] as string[]).includes('all_modules')]).toEqual([
      'not_found',
      false,
    ]);
  });
});
