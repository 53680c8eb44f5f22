import { z } from 'zod';
import { CoverageSchema, EvidenceIdSchema, JsonValueSchema, Sha256HexSchema } from './evidence.js';

const base = {
  parent_evidence_id: EvidenceIdSchema,
  parent_operation: z.string(),
  coverage: z.strictObject({
    status: z.enum(['complete', 'partial']),
    reasons: z.array(z.string()),
    next_offset: z.number().int().nonnegative().nullable().describe('Where the next page starts; null at the end.'),
  }),
  digest: Sha256HexSchema.describe('SHA-256 of the canonical JSON of the selected facts.'),
};

/**
 * The summary view of `selectAnalysisView` as a zod schema: the `normalized_result` of an
 * `inspect_analysis_view` summary, and of every `detail: "summary"` answer.
 */
export const SummaryViewSchema = z.strictObject({
  view: z.literal('summary'),
  ...base,
  summary: z.strictObject({
    sections: z.record(z.string(), z.string()),
    collections: z.record(z.string(), z.number().int().nonnegative()),
    text: z.record(z.string(), z.number().int().nonnegative()),
    parent_coverage: CoverageSchema,
    limitation_count: z.number().int().nonnegative(),
    // Application analyses only: the application, and its coverage per semantic phase.
    application: z
      .strictObject({
        input_format: z.string(),
        integrity_policy: z.string(),
        electron: z.boolean(),
        name: z.string().nullable(),
        version: z.string().nullable(),
        roles: z.array(z.strictObject({ role: z.string(), node_id: z.string() })),
        feature_flags: z
          .strictObject({
            sites: z.number().int().nonnegative(),
            keys: z.number().int().nonnegative(),
            top: z.array(
              z.strictObject({
                key: z.string(),
                providers: z.array(z.string()),
                sites: z.number().int().nonnegative(),
              }),
            ),
          })
          .describe('Flag checks and keys; top: the keys checked most.'),
      })
      .optional(),
    semantic_coverage: z
      .array(
        z.strictObject({ phase: z.string(), status: z.enum(['complete', 'partial']), reasons: z.array(z.string()) }),
      )
      .optional(),
  }),
});

/**
 * The result of `selectAnalysisView` as a zod schema (the `normalized_result` of an
 * `inspect_analysis_view` record), discriminated by `view`.
 */
export const AnalysisViewSchema = z.discriminatedUnion('view', [
  SummaryViewSchema,
  z.strictObject({ view: z.literal('section'), ...base, section: z.string(), value: JsonValueSchema }),
  z.strictObject({
    view: z.literal('item'),
    ...base,
    collection: z.string(),
    id: z.string(),
    matched_by: z.string(),
    index: z.number().int().nonnegative(),
    item: JsonValueSchema,
  }),
  z.strictObject({
    view: z.literal('page'),
    ...base,
    collection: z.string(),
    unit: z.enum(['items', 'utf16-code-units']),
    offset: z.number().int().nonnegative(),
    limit: z.number().int().positive(),
    total: z.number().int().nonnegative(),
    items: z.array(JsonValueSchema).optional(),
    text: z.string().optional(),
  }),
]);
