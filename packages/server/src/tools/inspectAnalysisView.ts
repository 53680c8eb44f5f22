import { z } from 'zod';
import {
  AnalysisViewRequestSchema,
  CoverageSchema,
  EvidenceIdSchema,
  EvidenceRecordSchema,
  RetainedEvidenceRefSchema,
  parseEvidence,
  selectAnalysisView,
  sealAnalysisView,
} from '@rea/evidence';
import type { AnalysisViewRequest, EvidenceRecord } from '@rea/evidence';
import { defineTool } from '@rea/provider-kit';
import { ledgerOf } from '../host.js';
import { NO_EFFECTS } from './effects.js';

const SourceSchema = z
  .union([RetainedEvidenceRefSchema, EvidenceRecordSchema])
  .describe(
    '{"kind":"retained-evidence","evidence_id":"ev_…"} retained by this connection, or a complete Evidence record.',
  );

// One input object per view kind: the request of @rea/evidence plus the source.
const InputSchema = z.union(
  AnalysisViewRequestSchema.options.map((option) =>
    option.extend({
      source: SourceSchema,
      view: (option.shape.view as z.ZodType).describe('The view: summary, section, item or page.'),
    }),
  ) as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]],
);

const ViewSchema = z.looseObject({
  view: z.enum(['summary', 'section', 'item', 'page']),
  parent_evidence_id: EvidenceIdSchema,
  parent_operation: z.string(),
  coverage: CoverageSchema,
  digest: z.string(),
});

const EXAMPLE_REF = { kind: 'retained-evidence', evidence_id: `ev_${'0'.repeat(64)}` } as const;

/** `inspect_analysis_view`: a view over completed Evidence, without starting a provider. */
export const inspectAnalysisViewTool = defineTool({
  name: 'inspect_analysis_view',
  title: 'View retained Evidence',
  description:
    'Projects a caller-selected view of already completed Evidence without starting a provider: "summary" ' +
    '(sections, collection sizes, pageable text), one "section", one "item" of a collection by id or path, or a stable ' +
    '"page" of a collection (items) or text (UTF-16 code units, never splitting a surrogate pair), default ' +
    'offset 0 and limit 64, with coverage.next_offset for the next page. An application analysis also has ' +
    '"all_modules": its scripts, bundled and source modules in one list. The source is a retained reference ' +
    'from this connection (evidence_id from an earlier result or from get_evidence_bundle summaries) or ' +
    'complete inline Evidence. Returns derived Evidence linked to its source, with a digest of the selection.',
  produces: 'evidence',
  input: InputSchema,
  result: ViewSchema,
  examples: [
    { input: { source: EXAMPLE_REF, view: 'summary' }, description: 'Summarize a retained record.' },
    {
      input: { source: EXAMPLE_REF, view: 'page', collection: 'pseudocode', offset: 0, limit: 64 },
      description: 'First page of retained pseudocode.',
    },
    {
      input: { source: EXAMPLE_REF, view: 'item', collection: 'all_modules', id: 'src/renderer/ipc.js' },
      description: 'One module of a retained application analysis, by path.',
    },
  ],
  effects: { ...NO_EFFECTS, mutatesSession: true, idempotent: true },
  run: async (input, context) => {
    const { source, ...request } = input as { source: unknown } & AnalysisViewRequest;
    // Inline Evidence needs no ledger; a retained reference resolves against this session's.
    const parent: EvidenceRecord = RetainedEvidenceRefSchema.safeParse(source).success
      ? ledgerOf(context).resolve(source as z.infer<typeof RetainedEvidenceRefSchema>)
      : parseEvidence(source, 'source');
    const view = selectAnalysisView(parent, request as AnalysisViewRequest);
    const { evidence_id: _id, schema_version: _v, operation: _op, ...observation } = sealAnalysisView(parent, view);
    return observation as never;
  },
});
