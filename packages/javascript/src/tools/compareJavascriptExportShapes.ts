import { z } from 'zod';
import { ReaError } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import type { ToolContext } from '@rea/provider-kit';
import { packageEntry, packageEntryPaths } from '../analysis/lookup.js';
import type { FoundModule } from '../analysis/lookup.js';
import { diffExports } from '../compare/exportShapes.js';
import { ExportSchema } from '../schemas.js';
import { ApplicationInputSchema, application, derivedCoverage, notAnalyzed, oneModule } from './application.js';
import { JAVASCRIPT_PROVIDER, javascriptProfile } from './common.js';

const SideSchema = z.strictObject({
  application: ApplicationInputSchema,
  module: z
    .string()
    .min(1)
    .optional()
    .describe("node_id, path or bundled id; default the top-level manifest's main module."),
});

/** `normalized_result` of `compare_javascript_export_shapes`. */
export const ExportShapeComparisonSchema = z.strictObject({
  before_module: z.string(),
  after_module: z.string(),
  compatible: z.boolean().describe('No export removed or changed in kind or arity.'),
  added: z.array(ExportSchema),
  removed: z.array(ExportSchema),
  changed: z.array(z.strictObject({ name: z.string(), before: ExportSchema, after: ExportSchema })),
  unchanged: z.number().int().nonnegative(),
});

function side(
  input: z.infer<typeof SideSchema>,
  context: ToolContext,
): { record: EvidenceRecord; module: FoundModule } {
  const { record, app } = application(input.application, context, 'application');
  if (input.module !== undefined) return { record, module: oneModule(app, input.module, record.evidence_id) };
  const entry = packageEntry(app);
  if (entry === null) {
    const paths = packageEntryPaths(app);
    const contradicted = app.integrity_contradictions.find((c) => paths.includes(c.path));
    if (contradicted !== undefined) throw notAnalyzed(contradicted, record.evidence_id);
    throw new ReaError('invalid_request', `Evidence ${record.evidence_id} has no manifest main module to compare.`, {
      details: { reason: 'module-required', evidence_id: record.evidence_id },
      remediation: 'Name the module to compare with "module".',
    });
  }
  return { record, module: oneModule(app, entry.node_id, record.evidence_id) };
}

/** `compare_javascript_export_shapes`: the API diff of two modules or packages. */
export const compareJavascriptExportShapesTool = defineTool({
  name: 'compare_javascript_export_shapes',
  title: 'Compare JavaScript export shapes',
  description:
    'The API diff of two modules or packages from analyze_javascript_application Evidence (the same analysis or two): exports added, removed, or changed in kind (function, class, value) or arity.',
  input: z.strictObject({
    before: SideSchema.describe('The earlier module or package.'),
    after: SideSchema.describe('The later one.'),
  }),
  result: ExportShapeComparisonSchema,
  examples: [
    {
      input: {
        before: { application: { kind: 'retained-evidence', evidence_id: `ev_${'1'.repeat(64)}` } },
        after: { application: { kind: 'retained-evidence', evidence_id: `ev_${'2'.repeat(64)}` } },
      },
      description: "Compare the main module's exports of two package versions.",
    },
  ],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  run(input, context) {
    const before = side(input.before, context);
    const after = side(input.after, context);
    const diff = diffExports(before.module.exports, after.module.exports);
    const records =
      before.record.evidence_id === after.record.evidence_id ? [after.record] : [before.record, after.record];
    return Promise.resolve({
      subject: after.record.subject,
      provider: JAVASCRIPT_PROVIDER,
      analysis_profile: javascriptProfile('export-shapes', {}),
      parameters: {
        before: { evidence_id: before.record.evidence_id, module: before.module.node_id },
        after: { evidence_id: after.record.evidence_id, module: after.module.node_id },
      },
      normalized_result: {
        before_module: before.module.node_id,
        after_module: after.module.node_id,
        compatible: diff.removed.length === 0 && diff.changed.length === 0,
        added: diff.added,
        removed: diff.removed,
        changed: diff.changed.map(({ name, before: b, after: a }) => ({ name, before: b, after: a })),
        unchanged: diff.unchanged,
      },
      raw_result: null,
      confidence: 'derived' as const,
      limitations: [],
      coverage: derivedCoverage(records, []),
      locations: [],
      evidence_links: records.map((r) => r.evidence_id),
    });
  },
});
