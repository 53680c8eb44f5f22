import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import {
  AnalysisViewSchema,
  DEFAULT_VIEW_LIMIT,
  parseEvidence,
  sealAnalysisView,
  sealEvidence,
  selectAnalysisView,
} from '@rea/evidence';
import type { AnalysisView, JsonValue, PageView } from '@rea/evidence';
import type { z } from 'zod';
import { caught, functionObservation, functionRecord, recordWith } from './records.js';

const digestOf = (value: unknown): string => createHash('sha256').update(canonicalize(value)!).digest('hex');

const rows = Array.from({ length: 150 }, (_, i) => ({ address: `0x${(0x1000 + i).toString(16)}`, text: `row ${i}` }));
const parent = recordWith({
  procedure: { address: '0x1000', name: 'main', assembly: rows, pseudocode: 'int main() {\n  return 0;\n}\n' },
  modules: [
    { node_id: 'n1', name: 'a.js', id: 'm1' },
    { node_id: 'n2', name: 'a.js', id: 'm2' },
    { node_id: 'n3', name: 'b.js', address: 3 },
  ],
  format: 'elf',
});

describe('selectAnalysisView', () => {
  it('should summarize sections, collection sizes and text', () => {
    const view = selectAnalysisView(parent, { view: 'summary' });
    expect(view).toMatchObject({
      view: 'summary',
      parent_evidence_id: parent.evidence_id,
      parent_operation: 'inspect_artifact',
      summary: {
        sections: { format: 'string', modules: 'array', procedure: 'object' },
        collections: { modules: 3, 'procedure.assembly': 150 },
        text: { 'procedure.pseudocode': 27 }, // 12 + 1 + 11 + 1 + 1 + 1 code units
        parent_coverage: { status: 'complete', reasons: [] },
        limitation_count: 1,
      },
      coverage: { status: 'complete', reasons: [], next_offset: null },
    });
    if (view.view !== 'summary') throw new Error('unreachable');
    expect(view.digest).toBe(digestOf(view.summary));
  });

  it('should return one section whole', () => {
    const view = selectAnalysisView(parent, { view: 'section', section: 'modules' });
    expect(view).toMatchObject({
      view: 'section',
      section: 'modules',
      value: (parent.normalized_result as never)['modules'],
    });
    expect(view.digest).toBe(digestOf((parent.normalized_result as Record<string, JsonValue>)['modules']));
    const error = caught(() => selectAnalysisView(parent, { view: 'section', section: 'imports' }));
    expect(error.code).toBe('not_found');
    expect(error.details).toEqual({
      reason: 'unknown-section',
      section: 'imports',
      available: ['format', 'modules', 'procedure'],
    });
    expect(error.remediation).toBe('Name one of the sections in details.available.');
  });

  it('should page a nested collection with defaults 0 and 64 and next_offset until the end', () => {
    const first = selectAnalysisView(parent, { view: 'page', collection: 'procedure.assembly' }) as PageView;
    expect(DEFAULT_VIEW_LIMIT).toBe(64);
    expect(first).toMatchObject({ offset: 0, limit: 64, total: 150, unit: 'items', items: rows.slice(0, 64) });
    expect(first.coverage).toEqual({
      status: 'partial',
      reasons: ['more follows from offset 64 of 150'],
      next_offset: 64,
    });
    expect(first.digest).toBe(digestOf(rows.slice(0, 64)));
    const last = selectAnalysisView(parent, {
      view: 'page',
      collection: 'procedure.assembly',
      offset: 128,
    }) as PageView;
    expect(last.items).toEqual(rows.slice(128));
    expect(last.coverage).toEqual({
      status: 'partial',
      reasons: ['page starts at offset 128 of 150'],
      next_offset: null,
    });
    const whole = selectAnalysisView(parent, { view: 'page', collection: 'modules', limit: 10 }) as PageView;
    expect(whole.coverage).toEqual({ status: 'complete', reasons: [], next_offset: null });
    const end = selectAnalysisView(parent, { view: 'page', collection: 'modules', offset: 3 }) as PageView;
    expect(end.items).toEqual([]);
    expect(end.coverage.next_offset).toBeNull();
  });

  it('should page text in UTF-16 code units', () => {
    const page = selectAnalysisView(parent, {
      view: 'page',
      collection: 'procedure.pseudocode',
      limit: 10,
    }) as PageView;
    expect(page).toMatchObject({ unit: 'utf16-code-units', text: 'int main()', total: 27 });
    expect(page.coverage.next_offset).toBe(10);
    expect(page.items).toBeUndefined();
  });

  it('should never end a text page between the halves of a surrogate pair', () => {
    const text = 'ab😀cd'; // a, b, high, low, c, d
    const record = recordWith({ source: text });
    const page = (offset: number, limit: number): PageView =>
      selectAnalysisView(record, { view: 'page', collection: 'source', offset, limit }) as PageView;
    expect(page(0, 3)).toMatchObject({ text: 'ab', coverage: { next_offset: 2 } });
    expect(page(2, 1)).toMatchObject({ text: '😀', coverage: { next_offset: 4 } });
    expect(page(2, 2)).toMatchObject({ text: '😀', coverage: { next_offset: 4 } });
    expect(page(4, 64)).toMatchObject({ text: 'cd', coverage: { next_offset: null } });
    const error = caught(() => page(3, 2));
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual({ reason: 'offset-splits-surrogate-pair', offset: 3, suggested_offset: 2 });
    expect(error.remediation).toBe('Page from offset 2 (details.suggested_offset), where the pair begins.');
  });

  it('should find one item by node_id, id, address or name', () => {
    const byNode = selectAnalysisView(parent, { view: 'item', collection: 'modules', id: 'n2' });
    expect(byNode).toMatchObject({ matched_by: 'node_id', index: 1, item: { node_id: 'n2', name: 'a.js', id: 'm2' } });
    expect(byNode.digest).toBe(digestOf({ node_id: 'n2', name: 'a.js', id: 'm2' }));
    expect(selectAnalysisView(parent, { view: 'item', collection: 'modules', id: 'm1' })).toMatchObject({
      matched_by: 'id',
      index: 0,
    });
    expect(selectAnalysisView(parent, { view: 'item', collection: 'modules', id: '3' })).toMatchObject({
      matched_by: 'address',
      index: 2,
    });
    expect(selectAnalysisView(parent, { view: 'item', collection: 'modules', id: 'b.js' })).toMatchObject({
      matched_by: 'name',
      index: 2,
    });
    const row = selectAnalysisView(parent, { view: 'item', collection: 'procedure.assembly', id: '0x1005' });
    expect(row).toMatchObject({ index: 5, item: rows[5] });
    const ambiguous = caught(() => selectAnalysisView(parent, { view: 'item', collection: 'modules', id: 'a.js' }));
    expect(ambiguous.code).toBe('invalid_request');
    expect(ambiguous.details).toMatchObject({ reason: 'ambiguous-item', matched_by: 'name', indices: [0, 1] });
    const missing = caught(() => selectAnalysisView(parent, { view: 'item', collection: 'modules', id: 'zz' }));
    expect(missing.code).toBe('not_found');
    expect(missing.details).toMatchObject({ reason: 'missing-item', collection: 'modules', id: 'zz' });
    expect(missing.remediation).toContain('Page "modules" for the ids its items have');
  });

  it('should name the available collections when one is unknown', () => {
    const error = caught(() => selectAnalysisView(parent, { view: 'page', collection: 'procedure.blocks' }));
    expect(error.code).toBe('not_found');
    expect(error.details).toEqual({
      reason: 'unknown-collection',
      collection: 'procedure.blocks',
      available: ['modules', 'procedure.assembly'],
      available_text: ['procedure.pseudocode'],
    });
    expect(error.remediation).toContain('details.available');
    const object = caught(() => selectAnalysisView(parent, { view: 'page', collection: 'procedure' }));
    expect(object).toMatchObject({ code: 'invalid_request', details: { reason: 'not-pageable', kind: 'object' } });
    const text = caught(() => selectAnalysisView(parent, { view: 'item', collection: 'procedure.name', id: 'x' }));
    expect(text).toMatchObject({ code: 'invalid_request', details: { reason: 'not-pageable', kind: 'string' } });
  });

  it('should refuse malformed requests and out-of-range offsets', () => {
    for (const request of [
      { view: 'page', collection: 'modules', limit: 0 },
      { view: 'page', collection: 'modules', offset: -1 },
      { view: 'page', collection: 'modules', limit: 2.5 },
      { view: 'page' },
      { view: 'everything' },
      { view: 'summary', extra: true },
    ]) {
      expect(caught(() => selectAnalysisView(parent, request as never)).code).toBe('invalid_request');
    }
    const past = caught(() => selectAnalysisView(parent, { view: 'page', collection: 'modules', offset: 4 }));
    expect(past.details).toEqual({ reason: 'offset-out-of-range', offset: 4, total: 3 });
    expect(past.remediation).toBe("Page from an offset of at most 3 (the collection's length), or from 0.");
  });

  it('should address a root array as $ and array elements by index in dot paths', () => {
    const list = recordWith([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
    expect(selectAnalysisView(list, { view: 'summary' })).toMatchObject({
      summary: { sections: {}, collections: { $: 3 } },
    });
    expect(selectAnalysisView(list, { view: 'page', collection: '$', offset: 1, limit: 1 })).toMatchObject({
      items: [{ id: 'b' }],
      coverage: { next_offset: 2 },
    });
    expect(selectAnalysisView(parent, { view: 'section', section: 'modules.1.name' })).toMatchObject({ value: 'a.js' });
    expect(caught(() => selectAnalysisView(parent, { view: 'section', section: 'modules.01' })).code).toBe('not_found');
    expect(caught(() => selectAnalysisView(parent, { view: 'section', section: 'constructor' })).code).toBe(
      'not_found',
    );
  });

  it('should carry the parent coverage into views of a partial record', () => {
    const partial = sealEvidence({
      ...functionObservation('0x1'),
      coverage: { status: 'partial', reasons: ['budget-reached after 3 rows'] },
    });
    expect(selectAnalysisView(partial, { view: 'summary' }).coverage).toEqual({
      status: 'partial',
      reasons: ['parent: budget-reached after 3 rows'],
      next_offset: null,
    });
    const page = selectAnalysisView(partial, { view: 'page', collection: 'procedure.assembly' });
    expect(page.coverage).toEqual({
      status: 'partial',
      reasons: ['parent: budget-reached after 3 rows'],
      next_offset: null,
    });
  });
});

describe('AnalysisViewSchema', () => {
  it('should accept every kind of view and refuse a view without its digest', () => {
    const views = [
      selectAnalysisView(parent, { view: 'summary' }),
      selectAnalysisView(parent, { view: 'section', section: 'format' }),
      selectAnalysisView(parent, { view: 'item', collection: 'modules', id: 'n1' }),
      selectAnalysisView(parent, { view: 'page', collection: 'procedure.assembly', offset: 10, limit: 5 }),
      selectAnalysisView(parent, { view: 'page', collection: 'procedure.pseudocode' }),
    ];
    // The TypeScript view types and the schema describe the same values.
    const typed = (view: AnalysisView): z.infer<typeof AnalysisViewSchema> => view;
    for (const view of views) expect(AnalysisViewSchema.safeParse(typed(view)).success).toBe(true);
    const { digest: _digest, ...withoutDigest } = views[3]!;
    expect(AnalysisViewSchema.safeParse(withoutDigest).success).toBe(false);
  });
});

describe('sealAnalysisView', () => {
  it('should seal a view as derived Evidence linked to its parent', () => {
    const view = selectAnalysisView(parent, { view: 'page', collection: 'procedure.assembly', offset: 64 });
    const sealed = sealAnalysisView(parent, view);
    expect(parseEvidence(JSON.parse(JSON.stringify(sealed))).evidence_id).toBe(sealed.evidence_id);
    expect(sealed).toMatchObject({
      operation: 'inspect_analysis_view',
      confidence: 'derived',
      subject: parent.subject,
      provider: parent.provider,
      analysis_profile: parent.analysis_profile,
      evidence_links: [parent.evidence_id],
      parameters: {
        parent_evidence_id: parent.evidence_id,
        view: 'page',
        collection: 'procedure.assembly',
        offset: 64,
        limit: 64,
      },
      coverage: view.coverage,
      limitations: parent.limitations,
    });
    expect(sealed.normalized_result.parent_evidence_id).toBe(parent.evidence_id);
    expect(sealAnalysisView(parent, view).evidence_id).toBe(sealed.evidence_id);
    const other = sealAnalysisView(
      parent,
      selectAnalysisView(parent, { view: 'page', collection: 'procedure.assembly' }),
    );
    expect(other.evidence_id).not.toBe(sealed.evidence_id);
    expect(caught(() => sealAnalysisView(functionRecord('0x9'), view)).code).toBe('invalid_request');
  });
});
