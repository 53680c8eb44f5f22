import { z } from 'zod';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { MAX_COMPARE_ITEMS, compareVersions } from '../compare/versions.js';
import { ExportSchema } from '../schemas.js';
import { ApplicationInputSchema, application, derivedCoverage } from './application.js';
import { JAVASCRIPT_PROVIDER, javascriptProfile } from './common.js';

const ids = z.array(z.string());
const SetDiffSchema = z.strictObject({ added: ids, removed: ids });
const FlagUseSchema = z.strictObject({ providers: ids, sites: z.number().int().nonnegative() });

/** `normalized_result` of `compare_application_versions`. */
export const VersionComparisonSchema = z.strictObject({
  before_evidence_id: z.string(),
  after_evidence_id: z.string(),
  modules: z.strictObject({
    added: ids,
    removed: ids,
    changed: z.array(
      z.strictObject({
        before: z.string(),
        after: z.string(),
        matched_by: z.enum(['path', 'content', 'structure']),
        changes: z.array(z.enum(['path', 'content', 'exports', 'builtins'])),
      }),
    ),
    unknown: z
      .array(z.strictObject({ node_id: z.string(), reason: z.enum(['integrity-contradicted', 'content-unknown']) }))
      .describe('Matched, but not comparable: never reported unchanged.'),
    unchanged: z.number().int().nonnegative(),
  }),
  exports: z.array(
    z.strictObject({
      before: z.string(),
      after: z.string(),
      added: z.array(ExportSchema),
      removed: z.array(ExportSchema),
      changed: z.array(
        z.strictObject({ name: z.string(), system: z.string(), before: ExportSchema, after: ExportSchema }),
      ),
      unchanged: z.number().int().nonnegative(),
    }),
  ),
  assets: SetDiffSchema.extend({ changed: ids, unknown: ids }).describe('Logical paths.'),
  dependencies: z.array(
    z.strictObject({
      manifest: z.string(),
      name: z.string(),
      before: z.string().nullable(),
      after: z.string().nullable(),
    }),
  ),
  strings: SetDiffSchema,
  urls: SetDiffSchema,
  hosts: SetDiffSchema,
  ipc_channels: SetDiffSchema,
  effects: SetDiffSchema.describe('"<category> <api>" side-effect kinds.'),
  feature_flags: SetDiffSchema.extend({
    changed: z.array(z.strictObject({ key: z.string(), before: FlagUseSchema, after: FlagUseSchema })),
  }).describe('Flag keys; changed: checked by other providers or at more or fewer sites.'),
  truncated: z.boolean(),
});

/** `compare_application_versions`: what changed between two analyzed versions of an application. */
export const compareApplicationVersionsTool = defineTool({
  name: 'compare_application_versions',
  title: 'Compare application versions',
  description:
    'Compares two analyze_javascript_application Evidence of one app: modules added, removed, changed (matched by path, then content hash, then structure when bundle ids are renumbered), export shapes, assets, dependency versions, strings, URLs, hosts, IPC channels, side effects, feature flags. Integrity-contradicted modules are unknown, never unchanged.',
  input: z.strictObject({
    before: ApplicationInputSchema.describe('The earlier version: analysis Evidence, inline or retained.'),
    after: ApplicationInputSchema.describe('The later version.'),
  }),
  result: VersionComparisonSchema,
  examples: [
    {
      input: {
        before: { kind: 'retained-evidence', evidence_id: `ev_${'1'.repeat(64)}` },
        after: { kind: 'retained-evidence', evidence_id: `ev_${'2'.repeat(64)}` },
      },
      description: 'Compare two retained analyses of an application.',
    },
  ],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  run(input, context) {
    const before = application(input.before, context, 'before');
    const after = application(input.after, context, 'after');
    const comparison = compareVersions(before.app, after.app);
    const records = [before.record, after.record];
    return Promise.resolve({
      subject: after.record.subject,
      provider: JAVASCRIPT_PROVIDER,
      analysis_profile: javascriptProfile('version-comparison', { max_items: MAX_COMPARE_ITEMS }),
      parameters: { before_evidence_id: before.record.evidence_id, after_evidence_id: after.record.evidence_id },
      normalized_result: {
        before_evidence_id: before.record.evidence_id,
        after_evidence_id: after.record.evidence_id,
        ...comparison,
      },
      raw_result: null,
      confidence: 'derived' as const,
      limitations: comparison.truncated
        ? [{ kind: 'comparison-cut', message: `A list was longer than ${MAX_COMPARE_ITEMS}; the first are listed.` }]
        : [],
      coverage: derivedCoverage(records, comparison.truncated ? ['comparison cut'] : []),
      locations: [],
      evidence_links: records.map((r) => r.evidence_id),
    });
  },
});
