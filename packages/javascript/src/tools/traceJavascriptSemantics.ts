import { z } from 'zod';
import { ReaError } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { MAX_SEMANTIC_ITEMS, moduleSemantics } from '../analysis/semantics.js';
import { ExportSchema } from '../schemas.js';
import { ApplicationInputSchema, application, derivedCoverage, oneModule } from './application.js';
import { JAVASCRIPT_PROVIDER, javascriptProfile } from './common.js';

const line = z.number().int().positive();

/** `normalized_result` of `trace_javascript_semantics`. */
export const ModuleSemanticsSchema = z.strictObject({
  application_evidence_id: z.string(),
  node_id: z.string(),
  kind: z.enum(['file', 'bundled']),
  file: z.string(),
  exports: z.array(ExportSchema),
  builtins: z.array(z.string()),
  calls: z.array(z.strictObject({ to: z.string().nullable(), specifier: z.string(), kind: z.string(), line })),
  called_by: z.array(z.strictObject({ from: z.string(), specifier: z.string(), kind: z.string(), line })),
  effects: z.array(
    z.strictObject({
      category: z.enum(['network', 'filesystem', 'process', 'dom']),
      api: z.string(),
      node_id: z.string(),
      line,
      column: z.number().int().nonnegative(),
    }),
  ),
  ipc: z.array(z.strictObject({ api: z.string(), channel: z.string().nullable(), line })),
  urls: z.array(z.strictObject({ url: z.string(), line })),
  dynamic_code: z.array(z.strictObject({ kind: z.string(), line })),
  feature_flags: z.array(
    z.strictObject({ key: z.string(), provider: z.string(), api: z.string(), node_id: z.string(), line }),
  ),
  truncated: z.boolean(),
});

/** `trace_javascript_semantics`: what one module imports, what imports it, its exports and side effects. */
export const traceJavascriptSemanticsTool = defineTool({
  name: 'trace_javascript_semantics',
  title: 'Trace JavaScript semantics',
  description:
    'For one file or bundled module of analyze_javascript_application Evidence: what it imports, what imports it, its exports, and the side effects observed statically (network, file system, process, IPC, DOM), URLs, dynamic code and feature-flag checks.',
  input: z.strictObject({
    application: ApplicationInputSchema,
    module: z.string().min(1).describe('node_id, path or bundled module id.'),
  }),
  result: ModuleSemanticsSchema,
  examples: [
    {
      input: { application: { kind: 'retained-evidence', evidence_id: `ev_${'3'.repeat(64)}` }, module: 'main.js' },
      description: 'What the main process script does.',
    },
  ],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  run(input, context) {
    const { record, app } = application(input.application, context, 'application');
    const module = oneModule(app, input.module, record.evidence_id);
    if (module.kind === 'source') {
      throw new ReaError(
        'invalid_request',
        `${module.node_id} is a source-map source; it has no code of its own here.`,
        {
          details: { reason: 'source-module', node_id: module.node_id, map: module.module.map },
          remediation: `Trace the file whose map names it (${module.module.map}) or one of its bundled modules.`,
        },
      );
    }
    const semantics = moduleSemantics(app, module);
    return Promise.resolve({
      subject: record.subject,
      provider: JAVASCRIPT_PROVIDER,
      analysis_profile: javascriptProfile('semantics', { max_items: MAX_SEMANTIC_ITEMS }),
      parameters: { application_evidence_id: record.evidence_id, module: module.node_id },
      normalized_result: { application_evidence_id: record.evidence_id, ...semantics },
      raw_result: null,
      confidence: 'derived' as const,
      limitations: semantics.truncated
        ? [{ kind: 'semantics-cut', message: `A list was longer than ${MAX_SEMANTIC_ITEMS}; the first are listed.` }]
        : [],
      coverage: derivedCoverage([record], semantics.truncated ? ['semantics cut'] : []),
      locations: [],
      evidence_links: [record.evidence_id],
    });
  },
});
