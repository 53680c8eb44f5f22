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
    });
    expect(view.summary.semantic_coverage).toEqual(application.phases);
    expect(view.summary.collections['modules']).toBe(1);
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
