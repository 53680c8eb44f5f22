import { z } from 'zod';
import { canonicalSha256 } from './canonicalJson.js';
import type { Coverage, EvidenceRecord } from './evidence.js';
import type { JsonObject, JsonValue } from './json.js';
import { ReaError } from './reaError.js';
import { applicationSummary } from './viewApplication.js';
import type { ApplicationFacet, SemanticPhaseCoverage } from './viewApplication.js';
import { ALL_MODULES, allModules, loosePath } from './viewModules.js';
import { kindOf, listPageable, resolvePath } from './viewPaths.js';
import { pageItems, pageText } from './viewPaging.js';

/** Default page size of an analysis view. */
export const DEFAULT_VIEW_LIMIT = 64;

const collection = z
  .string()
  .min(1)
  .describe(
    'Dot path of a collection in normalized_result, e.g. "procedure.assembly"; "$" for a root array; "all_modules" for an application\'s scripts, bundled and source modules together.',
  );

/** What to select from a retained record: a summary, one section, one item by id, or a page. */
export const AnalysisViewRequestSchema = z.discriminatedUnion('view', [
  z.strictObject({ view: z.literal('summary') }),
  z.strictObject({
    view: z.literal('section'),
    section: z.string().min(1).describe('Top-level key (or dot path) of normalized_result.'),
  }),
  z.strictObject({
    view: z.literal('item'),
    collection,
    id: z
      .string()
      .min(1)
      .describe(
        'Value of the item\'s "node_id", "id", "address", "name" or "path" (tried in that order; a path also without "./" or a "webpack://app/" prefix).',
      ),
  }),
  z.strictObject({
    view: z.literal('page'),
    collection: collection.describe(
      'Dot path of an array (paged by items) or a text field (paged by UTF-16 code units) in normalized_result.',
    ),
    offset: z.number().int().nonnegative().optional().describe('First item or code unit; default 0.'),
    limit: z.number().int().positive().optional().describe(`Page size; default ${DEFAULT_VIEW_LIMIT}.`),
  }),
]);
/** A view request; see {@link AnalysisViewRequestSchema}. */
export type AnalysisViewRequest = z.infer<typeof AnalysisViewRequestSchema>;

/** Coverage of a view: `next_offset` is where the next page starts, null at the end and for non-page views. */
export interface ViewCoverage extends Coverage {
  next_offset: number | null;
}

interface ViewBase {
  parent_evidence_id: string;
  parent_operation: string;
  coverage: ViewCoverage;
  /** Lowercase hex SHA-256 of the canonical JSON of the selected facts. */
  digest: string;
}

/** A summary of the parent: its sections, collection sizes, pageable text and coverage. */
export interface SummaryView extends ViewBase {
  view: 'summary';
  summary: {
    /** Top-level keys of normalized_result with their JSON kind. */
    sections: Record<string, string>;
    /** Arrays by dot path, with their lengths. */
    collections: Record<string, number>;
    /** Long or multi-line strings by dot path, with their lengths in UTF-16 code units. */
    text: Record<string, number>;
    parent_coverage: Coverage;
    limitation_count: number;
    /** For an application analysis (`analyze_javascript_application`): the application it describes. */
    application?: ApplicationFacet;
    /** For an application analysis: its coverage per semantic phase. */
    semantic_coverage?: SemanticPhaseCoverage[];
  };
}

/** One section (a key of normalized_result) in full. */
export interface SectionView extends ViewBase {
  view: 'section';
  section: string;
  value: JsonValue;
}

/** One element of a collection, found by id. */
export interface ItemView extends ViewBase {
  view: 'item';
  collection: string;
  id: string;
  /** Which key of the item matched. */
  matched_by: string;
  index: number;
  item: JsonValue;
}

/** A page of a collection: `items` for arrays, `text` for strings. */
export interface PageView extends ViewBase {
  view: 'page';
  collection: string;
  unit: 'items' | 'utf16-code-units';
  offset: number;
  limit: number;
  /** Length of the whole collection, in `unit`. */
  total: number;
  items?: JsonValue[];
  text?: string;
}

/** The result of {@link selectAnalysisView}. */
export type AnalysisView = SummaryView | SectionView | ItemView | PageView;

const ITEM_KEYS = ['node_id', 'id', 'address', 'name', 'path'] as const;

function parseRequest(request: unknown): AnalysisViewRequest {
  const parsed = AnalysisViewRequestSchema.safeParse(request);
  if (parsed.success) return parsed.data;
  throw new ReaError('invalid_request', 'The analysis view request is malformed.', {
    details: { issues: parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })) },
  });
}

function parentCoverage(parent: EvidenceRecord): ViewCoverage {
  return {
    status: parent.coverage.status,
    reasons: parent.coverage.reasons.map((r) => `parent: ${r}`),
    next_offset: null,
  };
}

function unknownCollection(result: JsonValue, path: string, application: boolean): ReaError {
  const { collections, text } = listPageable(result);
  if (application) collections[ALL_MODULES] = 0;
  return new ReaError('not_found', `normalized_result has no collection "${path}".`, {
    remediation: 'Page one of the collections in details.available (details.available_text for text pages).',
    details: {
      reason: 'unknown-collection',
      collection: path,
      available: Object.keys(collections),
      available_text: Object.keys(text),
    },
  });
}

function collectionAt(record: EvidenceRecord, path: string, allowText: boolean): JsonValue[] | string {
  const result = record.normalized_result;
  const modules = path === ALL_MODULES ? allModules(record) : null;
  const value = modules ?? resolvePath(result, path);
  if (value === undefined) throw unknownCollection(result, path, allModules(record) !== null);
  if (Array.isArray(value) || (allowText && typeof value === 'string')) return value;
  throw new ReaError('invalid_request', `"${path}" is a ${kindOf(value)}, not a pageable collection.`, {
    details: { reason: 'not-pageable', collection: path, kind: kindOf(value) },
  });
}

type Match = (item: JsonObject) => boolean;

function findItem(items: JsonValue[], id: string): { index: number; key: string } | null {
  const tries: [string, Match][] = ITEM_KEYS.map((key) => [
    key,
    (item) => item[key] === id || (typeof item[key] === 'number' && String(item[key]) === id),
  ]);
  // Last, a path as a person may type it (without "./" or the source map's scheme and namespace).
  const loose = loosePath(id);
  tries.push(['path', (item) => typeof item['path'] === 'string' && loosePath(item['path']) === loose]);
  for (const [key, matches] of tries) {
    const found: number[] = [];
    items.forEach((item, index) => {
      if (item !== null && typeof item === 'object' && !Array.isArray(item) && matches(item)) found.push(index);
    });
    if (found.length === 1) return { index: found[0]!, key };
    if (found.length > 1) {
      const ids = found.map((i) => (items[i] as JsonObject)['node_id']).filter((v) => typeof v === 'string');
      throw new ReaError('invalid_request', `Several items have ${key} "${id}".`, {
        details: {
          reason: 'ambiguous-item',
          id,
          matched_by: key,
          indices: found.slice(0, 20),
          ...(ids.length > 0 ? { node_ids: ids.slice(0, 20) } : {}),
        },
        remediation: 'Select the item by its exact node_id, or page through the collection.',
      });
    }
  }
  return null;
}

/**
 * Selects a view of a retained record's `normalized_result` without re-running anything:
 * - `summary`: sections, collection sizes, pageable text, the parent's coverage; for an application
 *   analysis also the application (format, Electron, name and version, roles) and its coverage per
 *   semantic phase;
 * - `section`: one key (or dot path) of normalized_result in full;
 * - `item`: the element of an array collection whose `node_id`, `id`, `address`, `name` or `path`
 *   (tried in that order; last, a path compared without "./" or a `scheme://namespace/` prefix) equals
 *   `id` (several matches on the same key are `invalid_request`, reason "ambiguous-item", with their
 *   `node_ids`; none is `not_found`, reason "missing-item");
 * - for an application analysis, the collection `all_modules` lists its scripts, bundled modules and
 *   source modules together (see {@link allModules}), for pages and for one module by path or node_id;
 * - `page`: `limit` (default 64) items from `offset` (default 0) of an array in order, or of a string
 *   counted in UTF-16 code units and never splitting a surrogate pair; `coverage.next_offset` is where
 *   the next page starts, null at the end.
 * Unknown collections or sections are `not_found` listing the available ones in `details.available`;
 * malformed requests, non-pageable paths and out-of-range offsets are `invalid_request`.
 */
export function selectAnalysisView(parent: EvidenceRecord<unknown>, request: AnalysisViewRequest): AnalysisView {
  const record = parent as EvidenceRecord;
  const req = parseRequest(request);
  const result = record.normalized_result;
  const base = { parent_evidence_id: record.evidence_id, parent_operation: record.operation };
  switch (req.view) {
    case 'summary': {
      const sections: Record<string, string> = {};
      if (result !== null && typeof result === 'object' && !Array.isArray(result)) {
        for (const key of Object.keys(result).sort()) sections[key] = kindOf(result[key]!);
      }
      const pageable = listPageable(result);
      const modules = allModules(record);
      if (modules !== null) pageable.collections[ALL_MODULES] = modules.length;
      const summary = {
        sections,
        ...pageable,
        parent_coverage: record.coverage,
        limitation_count: record.limitations.length,
        ...applicationSummary(record),
      };
      const digest = canonicalSha256(summary);
      return { view: 'summary', ...base, summary, coverage: parentCoverage(record), digest };
    }
    case 'section': {
      const value = resolvePath(result, req.section);
      if (value === undefined) {
        const available =
          result !== null && typeof result === 'object' && !Array.isArray(result) ? Object.keys(result) : [];
        throw new ReaError('not_found', `normalized_result has no section "${req.section}".`, {
          remediation: 'Name one of the sections in details.available.',
          details: { reason: 'unknown-section', section: req.section, available: available.sort() },
        });
      }
      return {
        view: 'section',
        ...base,
        section: req.section,
        value,
        coverage: parentCoverage(record),
        digest: canonicalSha256(value),
      };
    }
    case 'item': {
      const items = collectionAt(record, req.collection, false) as JsonValue[];
      const found = findItem(items, req.id);
      if (found === null) {
        throw new ReaError('not_found', `No item of "${req.collection}" has id "${req.id}".`, {
          remediation: `Page "${req.collection}" for the ids its items have (details.searched_keys names the keys an id is matched against).`,
          details: { reason: 'missing-item', collection: req.collection, id: req.id, searched_keys: [...ITEM_KEYS] },
        });
      }
      const item = items[found.index]!;
      return {
        view: 'item',
        ...base,
        collection: req.collection,
        id: req.id,
        matched_by: found.key,
        index: found.index,
        item,
        coverage: parentCoverage(record),
        digest: canonicalSha256(item),
      };
    }
    case 'page': {
      const offset = req.offset ?? 0;
      const limit = req.limit ?? DEFAULT_VIEW_LIMIT;
      const target = collectionAt(record, req.collection, true);
      const page = typeof target === 'string' ? pageText(target, offset, limit) : pageItems(target, offset, limit);
      const reasons = parentCoverage(record).reasons;
      if (offset > 0) reasons.unshift(`page starts at offset ${offset} of ${page.total}`);
      if (page.next_offset !== null) reasons.unshift(`more follows from offset ${page.next_offset} of ${page.total}`);
      const coverage: ViewCoverage = {
        status: reasons.length === 0 ? 'complete' : 'partial',
        reasons,
        next_offset: page.next_offset,
      };
      const facts = typeof target === 'string' ? { text: page.text! } : { items: page.items! };
      return {
        view: 'page',
        ...base,
        collection: req.collection,
        unit: typeof target === 'string' ? 'utf16-code-units' : 'items',
        offset,
        limit,
        total: page.total,
        ...facts,
        coverage,
        digest: canonicalSha256(typeof target === 'string' ? page.text! : page.items!),
      };
    }
  }
}

/** The request a view answered, with defaults applied: the `parameters` of its sealed record. */
export function viewParameters(view: AnalysisView): JsonObject {
  switch (view.view) {
    case 'summary':
      return { view: 'summary' };
    case 'section':
      return { view: 'section', section: view.section };
    case 'item':
      return { view: 'item', collection: view.collection, id: view.id };
    case 'page':
      return { view: 'page', collection: view.collection, offset: view.offset, limit: view.limit };
  }
}
