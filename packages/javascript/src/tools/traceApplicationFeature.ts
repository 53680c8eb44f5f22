import { z } from 'zod';
import { ReaError } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { MAX_TRACE_ITEMS, traceFeature } from '../analysis/trace.js';
import { ApplicationInputSchema, application, derivedCoverage } from './application.js';
import { JAVASCRIPT_PROVIDER, javascriptProfile } from './common.js';

const SeedSchema = z.strictObject({
  kind: z.enum(['module', 'string', 'symbol', 'url', 'ipc_channel', 'feature_flag']).describe('What the value names.'),
  value: z.string().min(1).max(1024).describe('The path, string, name, URL, host, channel or flag key.'),
  match: z.enum(['exact', 'prefix', 'regex']).default('exact').describe('Default exact.'),
});

const InputSchema = z.strictObject({
  application: ApplicationInputSchema,
  seed: SeedSchema.describe('Where to start.'),
});

const SiteSchema = z.strictObject({
  node_id: z.string(),
  kind: z.enum(['module', 'string', 'export', 'url', 'ipc', 'flag']),
  detail: z.string(),
  line: z.number().int().positive().nullable(),
  column: z.number().int().nonnegative().nullable(),
});

/** `normalized_result` of `trace_application_feature`. */
export const FeatureTraceSchema = z.strictObject({
  application_evidence_id: z.string(),
  sites: z.array(SiteSchema),
  modules: z.array(z.string()),
  ipc_channels: z.array(
    z.strictObject({
      channel: z.string(),
      sites: z.array(z.strictObject({ node_id: z.string(), api: z.string(), line: z.number().int().positive() })),
    }),
  ),
  pages: z.array(z.string()),
  paths: z.array(z.array(z.string())).describe('Import paths from an entry (first) to a traced module (last).'),
  truncated: z.boolean(),
});

/** `trace_application_feature`: from a seed to the modules, sites, IPC channels and pages that carry it. */
export const traceApplicationFeatureTool = defineTool({
  name: 'trace_application_feature',
  title: 'Trace application feature',
  description:
    'Traces a seed (module, string, symbol, url or ipc_channel) through analyze_javascript_application Evidence without re-analyzing: matching sites, their modules, IPC channels with sites on both sides, loading pages, import paths from an entry point.',
  input: InputSchema,
  result: FeatureTraceSchema,
  examples: [
    {
      input: {
        application: { kind: 'retained-evidence', evidence_id: `ev_${'3'.repeat(64)}` },
        seed: { kind: 'ipc_channel', value: 'notes:save', match: 'exact' },
      },
      description: 'Where an IPC channel is sent and handled, in an analysis retained earlier.',
    },
  ],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  async run(input, context) {
    if (input.seed.match === 'regex') {
      try {
        new RegExp(input.seed.value, 'u');
      } catch (error) {
        throw new ReaError(
          'invalid_request',
          `seed.value is not a valid regular expression: ${(error as Error).message}`,
          {
            details: { reason: 'invalid-regex', value: input.seed.value },
          },
        );
      }
    }
    const { record, app } = application(input.application, context, 'application');
    const trace = traceFeature(app, input.seed);
    return {
      subject: record.subject,
      provider: JAVASCRIPT_PROVIDER,
      analysis_profile: javascriptProfile('feature-trace', { max_items: MAX_TRACE_ITEMS }),
      parameters: { application_evidence_id: record.evidence_id, seed: input.seed },
      normalized_result: { application_evidence_id: record.evidence_id, ...trace },
      raw_result: null,
      confidence: 'derived' as const,
      limitations: trace.truncated
        ? [{ kind: 'trace-cut', message: `More than ${MAX_TRACE_ITEMS} sites or paths; the first are listed.` }]
        : [],
      coverage: derivedCoverage([record], trace.truncated ? ['trace cut'] : []),
      locations: [],
      evidence_links: [record.evidence_id],
    };
  },
});
