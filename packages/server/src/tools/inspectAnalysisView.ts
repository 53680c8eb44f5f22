import { z } from 'zod';
import {
  EvidenceIdSchema,
  EvidenceRecordSchema,
  JsonValueSchema,
  RetainedEvidenceRefSchema,
  parseEvidence,
} from '@rea/evidence';
import type { EvidenceRecord, JsonValue } from '@rea/evidence';
import { defineTool } from '@rea/provider-kit';
import { hostOf } from '../host.js';
import { VIEW_DEFAULTS, facetOf, pageOf, selectionDigest, summarize } from '../views.js';
import { NO_EFFECTS } from './effects.js';

const ViewResultSchema = z.strictObject({
  parent_evidence_id: EvidenceIdSchema,
  parent_operation: z.string(),
  view: z.enum(['summary', 'section', 'page']),
  facet: z.string().nullable(),
  facets: z
    .array(
      z.strictObject({
        facet: z.string(),
        kind: z.enum(['rows', 'text', 'object', 'scalar']),
        length: z.number().int().nonnegative().nullable(),
      }),
    )
    .nullable(),
  section: JsonValueSchema.nullable(),
  page: z
    .strictObject({
      kind: z.enum(['rows', 'text']),
      offset: z.number().int().nonnegative(),
      limit: z.number().int().positive(),
      total: z.number().int().nonnegative(),
      items: z.array(JsonValueSchema).nullable(),
      text: z.string().nullable(),
      next_offset: z.number().int().nonnegative().nullable(),
    })
    .nullable(),
  digest: z.string(),
});

/** `inspect_analysis_view`: a view over completed Evidence, without starting a provider. */
export const inspectAnalysisViewTool = defineTool({
  name: 'inspect_analysis_view',
  title: 'View retained Evidence',
  description:
    'Projects a caller-selected view of already completed Evidence without starting a provider: "summary" lists ' +
    'the facets of normalized_result with their sizes; "section" returns one facet whole; "page" returns a ' +
    "stable page of a facet's rows, or of its text in UTF-16 code units (never splitting a surrogate pair), " +
    'with coverage.next_offset for the next page. The source is a retained reference from this connection or ' +
    'complete inline Evidence. Returns derived Evidence linked to its source, with a digest of the selection.',
  produces: 'evidence',
  input: z
    .strictObject({
      source: z
        .union([RetainedEvidenceRefSchema, EvidenceRecordSchema])
        .describe(
          '{"kind":"retained-evidence","evidence_id":"ev_…"} from this connection, or a complete Evidence record.',
        ),
      view: z.enum(['summary', 'section', 'page']).describe('summary, one section (facet), or a page of a facet.'),
      facet: z
        .string()
        .min(1)
        .optional()
        .describe('Dotted path inside normalized_result, e.g. "pseudocode" or "sections"; needed by section and page.'),
      offset: z.number().int().nonnegative().optional().describe('Page start (rows or UTF-16 code units); default 0.'),
      limit: z.number().int().positive().optional().describe('Page size (rows or UTF-16 code units); default 64.'),
    })
    .refine((value) => value.view === 'summary' || value.facet !== undefined, {
      message: 'section and page views need a facet',
      path: ['facet'],
    }),
  result: ViewResultSchema,
  examples: [
    {
      input: {
        source: { kind: 'retained-evidence', evidence_id: `ev_${'0'.repeat(64)}` },
        view: 'summary',
      },
      description: 'Summarize a retained record (use an evidence_id returned by an earlier call).',
    },
    {
      input: {
        source: { kind: 'retained-evidence', evidence_id: `ev_${'0'.repeat(64)}` },
        view: 'page',
        facet: 'pseudocode',
        offset: 0,
        limit: 64,
      },
      description: 'First page of retained pseudocode.',
    },
  ],
  effects: { ...NO_EFFECTS, mutatesSession: true, idempotent: true },
  run: async (input, context) => {
    const host = hostOf(context);
    const parent: EvidenceRecord =
      'kind' in input.source && input.source.kind === 'retained-evidence'
        ? host.session.ledger.resolve(input.source)
        : parseEvidence(input.source);
    const result = parent.normalized_result;
    const offset = input.offset ?? VIEW_DEFAULTS.offset;
    const limit = input.limit ?? VIEW_DEFAULTS.limit;
    let facets: ReturnType<typeof summarize> | null = null;
    let section: JsonValue = null;
    let page: ReturnType<typeof pageOf> | null = null;
    if (input.view === 'summary') facets = summarize(result);
    else if (input.view === 'section') section = facetOf(result, input.facet!);
    else page = pageOf(facetOf(result, input.facet!), input.facet!, offset, limit);
    const selection = { facets, section, page } as unknown as JsonValue;
    const nextOffset = page?.next_offset ?? null;
    return {
      subject: parent.subject,
      provider: host.viewProvider(),
      analysis_profile: parent.analysis_profile,
      parameters: {
        source: parent.evidence_id,
        view: input.view,
        facet: input.facet ?? null,
        ...(input.view === 'page' ? { offset, limit } : {}),
      },
      normalized_result: {
        parent_evidence_id: parent.evidence_id,
        parent_operation: parent.operation,
        view: input.view,
        facet: input.facet ?? null,
        facets,
        section,
        page,
        digest: selectionDigest(selection),
      },
      raw_result: null,
      confidence: 'derived',
      limitations: [],
      coverage:
        nextOffset === null
          ? { status: 'complete', reasons: [], next_offset: null }
          : { status: 'partial', reasons: ['more pages follow'], next_offset: nextOffset },
      locations: [],
      evidence_links: [parent.evidence_id],
    };
  },
});
