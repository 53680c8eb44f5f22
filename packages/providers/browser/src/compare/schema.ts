import { z } from 'zod';
import { RetainedEvidenceRefSchema } from '@rea/evidence';
import { WebPageInspectionSchema } from '../inspect/schema.js';
import { ScenarioCaptureSchema } from '../scenario/schema.js';
import { WebmcpDiscoverySchema } from '../tools/discoverWebmcpTools.js';

const PassiveSideSchema = z.strictObject({
  inspection: z
    .union([RetainedEvidenceRefSchema, WebPageInspectionSchema])
    .describe('inspect_web_page normalized_result, or a retained reference to its Evidence.'),
  webmcp: z
    .union([RetainedEvidenceRefSchema, WebmcpDiscoverySchema])
    .nullable()
    .optional()
    .describe('discover_webmcp_tools normalized_result, a retained reference, or null.'),
});

const ScenarioSideSchema = z.union([RetainedEvidenceRefSchema, ScenarioCaptureSchema]);

/** Rules applied to URLs and event details before scenario events are compared. */
export const NormalizationSchema = z.strictObject({
  rules: z
    .array(
      z.strictObject({
        pattern: z.string().min(1).max(1024).describe('JavaScript regular expression (global, unicode).'),
        replacement: z.string().max(1024).describe('Replacement text ($1… allowed).'),
      }),
    )
    .max(64)
    .describe('Applied in order.'),
});

/** Input of `compare_web_captures`: exactly one of the passive and the scenario shapes. */
export const CompareInputSchema = z.union([
  z.strictObject({
    before: PassiveSideSchema.describe('The earlier passive capture.'),
    after: PassiveSideSchema.describe('The later passive capture.'),
  }),
  z.strictObject({
    before_scenario: ScenarioSideSchema.describe(
      'The earlier capture_browser_scenario normalized_result, or a retained reference.',
    ),
    after_scenario: ScenarioSideSchema.describe(
      'The later capture_browser_scenario normalized_result, or a retained reference.',
    ),
    normalization: NormalizationSchema.default({ rules: [] }).describe('Default { "rules": [] }.'),
  }),
]);

const Names = z.array(z.string());
const Changed = z.array(z.strictObject({ key: z.string(), before: z.string(), after: z.string() }));
const Section = z.strictObject({ added: Names, removed: Names, changed: Changed });

/** `normalized_result` of `compare_web_captures`. */
export const WebCaptureComparisonSchema = z.strictObject({
  family: z.enum(['passive', 'scenario']),
  scripts: Section,
  resources: Section,
  webmcp_tools: Section,
  events: z.strictObject({ added: Names, removed: Names, actions_changed: Changed }).nullable(),
  unchanged: z.boolean(),
});
/** A comparison of two web captures. */
export type WebCaptureComparison = z.infer<typeof WebCaptureComparisonSchema>;
