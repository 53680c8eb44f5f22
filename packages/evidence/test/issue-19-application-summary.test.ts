import { describe, expect, it } from '@jest/globals';
import { SummaryViewSchema, selectAnalysisView } from '@rea/evidence';
import { recordWith } from './records.js';

const application = {
  view: 'complete',
  input_format: 'asar',
  integrity_policy: 'record-and-continue',
  electron: true,
  roles: [
    { role: 'main', node_id: 'file:main.js', evidence: 'manifest main' },
    { role: 'preload', node_id: 'file:preload.js', evidence: 'webPreferences.preload' },
  ],
  manifests: [
    { node_id: 'file:node_modules/x/package.json', path: 'node_modules/x/package.json', name: 'x', version: '9.0.0' },
    { node_id: 'file:package.json', path: 'package.json', name: 'notes', version: '1.0.0' },
  ],
  modules: [{ node_id: 'file:main.js' }],
  feature_flags: [
    { node_id: 'file:main.js', line: 3, column: 0, key: 'new-editor', provider: 'launchdarkly', api: 'variation' },
    { node_id: 'file:main.js', line: 9, column: 2, key: 'FEATURE_SYNC', provider: 'env', api: 'process.env' },
    { node_id: 'file:main.js', line: 7, column: 4, key: 'new-editor', provider: 'unleash', api: 'isEnabled' },
  ],
  phases: [
    { phase: 'read', status: 'complete', reasons: [] },
    { phase: 'parse', status: 'partial', reasons: ['1 of 2 scripts not parsed'] },
  ],
};

describe('the summary view of an application analysis', () => {
  it('should name the application and its coverage per semantic phase', () => {
    const view = selectAnalysisView(recordWith(application, 'analyze_javascript_application'), { view: 'summary' });
    if (view.view !== 'summary') throw new Error('expected a summary');
    expect(view.summary.application).toEqual({
      input_format: 'asar',
      integrity_policy: 'record-and-continue',
      electron: true,
      name: 'notes',
      version: '1.0.0',
      roles: [
        { role: 'main', node_id: 'file:main.js' },
        { role: 'preload', node_id: 'file:preload.js' },
      ],
      // Two checks of new-editor (by two SDKs) and one of FEATURE_SYNC: the key checked most first.
      feature_flags: {
        sites: 3,
        keys: 2,
        top: [
          { key: 'new-editor', providers: ['launchdarkly', 'unleash'], sites: 2 },
          { key: 'FEATURE_SYNC', providers: ['env'], sites: 1 },
        ],
      },
    });
    expect(view.summary.semantic_coverage).toEqual(application.phases);
    expect(view.summary.collections['modules']).toBe(1);
    expect(SummaryViewSchema.safeParse(view).success).toBe(true);
  });

  it('should list at most ten flag keys, most checked first, and count them all', () => {
    const flags = Array.from({ length: 12 }, (_, i) =>
      Array.from({ length: i + 1 }, (_, site) => ({
        node_id: 'file:main.js',
        line: site + 1,
        column: 0,
        key: `flag-${String(i).padStart(2, '0')}`,
        provider: 'growthbook',
        api: 'isOn',
      })),
    ).flat();
    const view = selectAnalysisView(
      recordWith({ ...application, feature_flags: flags }, 'analyze_javascript_application'),
      {
        view: 'summary',
      },
    );
    if (view.view !== 'summary') throw new Error('expected a summary');
    const facet = view.summary.application!.feature_flags;
    expect([facet.sites, facet.keys]).toEqual([78, 12]);
    expect(facet.top.map((f) => `${f.key}:${f.sites}`)).toEqual(
      [11, 10, 9, 8, 7, 6, 5, 4, 3, 2].map((i) => `flag-${String(i).padStart(2, '0')}:${i + 1}`),
    );
    expect(SummaryViewSchema.safeParse(view).success).toBe(true);
  });

  it('should leave other records without application facets', () => {
    const view = selectAnalysisView(recordWith(application, 'inspect_artifact'), { view: 'summary' });
    expect(view.view === 'summary' && Object.keys(view.summary).sort()).toEqual([
      'collections',
      'limitation_count',
      'parent_coverage',
      'sections',
      'text',
    ]);
  });
});
