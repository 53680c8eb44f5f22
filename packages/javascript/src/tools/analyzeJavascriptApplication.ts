import { z } from 'zod';
import { SummaryViewSchema } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool, requireRetention, retainAndSummarize } from '@rea/provider-kit';
import { IntegrityPolicySchema } from '@rea/artifact';
import {
  DEFAULT_MAX_DURATION_MS,
  DEFAULT_MAX_HEAP_MB,
  MAX_FACTS_PER_KIND,
  MAX_FILE_BYTES,
  MAX_STRINGS_PER_FILE,
  MAX_STRING_LENGTH,
} from '../limits.js';
import { JavascriptApplicationSchema } from '../schemas.js';
import { JAVASCRIPT_PROVIDER, javascriptProfile } from './common.js';

const InputSchema = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe('An application directory, an app.asar (.asar.unpacked beside it), a ZIP-based package or a script.'),
  detail: z
    .enum(['complete', 'summary'])
    .default('complete')
    .describe(
      'complete (default) returns the analysis Evidence; summary retains exactly that record in the session and returns its inspect_analysis_view summary, whose parent_evidence_id names it.',
    ),
  integrity_policy: IntegrityPolicySchema.default('fail-closed').describe(
    'fail-closed (default) stops at an integrity contradiction; record-and-continue lists contradicted files unanalyzed and continues (coverage partial).',
  ),
  max_heap_mb: z
    .number()
    .int()
    .min(16)
    .max(65536)
    .optional()
    .describe(`Worker heap limit in MiB (default ${DEFAULT_MAX_HEAP_MB}).`),
  max_duration_ms: z
    .number()
    .int()
    .min(1)
    .max(86_400_000)
    .optional()
    .describe(`Deadline in ms (default ${DEFAULT_MAX_DURATION_MS}).`),
});

/** `analyze_javascript_application`: inventory, Electron roles, module graph and facts of a JavaScript application. */
export const analyzeJavascriptApplicationTool = defineTool({
  name: 'analyze_javascript_application',
  title: 'Analyze JavaScript application',
  description:
    'Analyzes a JavaScript or Electron application without running it, in a worker bounded by max_heap_mb and max_duration_ms (near either, it stops parsing: coverage partial, the rest per-file unknowns; before any file: resource_constraint, details.resource memory or cpu). Returns Evidence: assets, source maps, Electron roles, module graph (files, bundled and source modules, edges, exports), strings, URLs, IPC channels, eval sites and Node built-ins, with coverage per phase and per-file unknowns. For a large app use detail "summary", then inspect_analysis_view.',
  input: InputSchema,
  result: z.union([JavascriptApplicationSchema, SummaryViewSchema]),
  examples: [
    {
      input: { path: '/Applications/Example.app/Contents/Resources/app.asar' },
      description: 'Analyze an Electron application archive.',
    },
    {
      input: { path: '/tmp/web-build', detail: 'summary', integrity_policy: 'record-and-continue' },
      description: 'Retain the analysis of a large build and return its summary.',
    },
  ],
  effects: RECORDS_EVIDENCE,
  clientFeatures: { optional: ['progress'] },
  produces: 'evidence',
  async run(input, context) {
    const ledger = context.ledger;
    if (input.detail === 'summary') requireRetention(ledger);
    // The worker's owner brings the analysis and its parser: loaded with the first analysis, not with the tool.
    const { analyzeInWorker } = await import('../worker/owner.js');
    const outcome = await analyzeInWorker(input.path, {
      integrityPolicy: input.integrity_policy,
      signal: context.signal,
      onProgress: (message, phase) => context.progress.report(message, phase),
      ...(input.max_heap_mb !== undefined ? { maxHeapMb: input.max_heap_mb } : {}),
      ...(input.max_duration_ms !== undefined ? { maxDurationMs: input.max_duration_ms } : {}),
    });
    const complete = {
      subject: outcome.subject,
      provider: JAVASCRIPT_PROVIDER,
      analysis_profile: javascriptProfile('application', {
        integrity_policy: input.integrity_policy,
        max_file_bytes: MAX_FILE_BYTES,
        max_strings_per_file: MAX_STRINGS_PER_FILE,
        max_string_length: MAX_STRING_LENGTH,
        max_facts_per_kind: MAX_FACTS_PER_KIND,
      }),
      // The same for both details: a summary retains exactly the record "complete" returns. The heap
      // limit and the deadline never change a result, only whether there is one, so they are not here.
      parameters: { detail: 'complete', integrity_policy: input.integrity_policy },
      normalized_result: outcome.result,
      raw_result: null,
      confidence: 'observed' as const,
      limitations: outcome.limitations,
      coverage: outcome.coverage,
      locations: [],
      evidence_links: [],
      local: { path: input.path },
    };
    if (input.detail === 'complete') return complete;
    requireRetention(ledger);
    return retainAndSummarize('analyze_javascript_application', complete, ledger, context.signal);
  },
});
