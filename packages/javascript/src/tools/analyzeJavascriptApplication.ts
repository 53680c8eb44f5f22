import { z } from 'zod';
import { ReaError, canonicalSha256, sealEvidence, throwIfAborted } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import type { LedgerAccess } from '@rea/provider-kit';
import { IntegrityPolicySchema } from '@rea/artifact';
import { MAX_STRING_LENGTH, MAX_STRINGS_PER_FILE } from '../analysis/facts.js';
import { MAX_FACTS_PER_KIND } from '../analysis/collector.js';
import { MAX_FILE_BYTES } from '../analysis/read.js';
import { JavascriptApplicationSchema, JavascriptApplicationSummarySchema } from '../schemas.js';
import type { JavascriptApplication, JavascriptApplicationSummary } from '../schemas.js';
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
      'complete (default) returns the whole analysis; summary retains it in the session and returns its summary.',
    ),
  integrity_policy: IntegrityPolicySchema.default('fail-closed').describe(
    'fail-closed (default) stops at an integrity contradiction; record-and-continue lists contradicted files unanalyzed and continues (coverage partial).',
  ),
});

type Retaining = LedgerAccess & { retain?: (record: EvidenceRecord) => unknown };

const COLLECTIONS = [
  'assets',
  'manifests',
  'html_entries',
  'modules',
  'bundled_modules',
  'source_modules',
  'edges',
  'strings',
  'urls',
  'ipc',
  'dynamic_code',
  'unknowns',
  'integrity_contradictions',
] as const;

function summarize(
  result: JavascriptApplication,
  parent: string,
  coverage: EvidenceRecord['coverage'],
): JavascriptApplicationSummary {
  return {
    view: 'summary',
    parent_evidence_id: parent,
    parent_operation: 'analyze_javascript_application',
    input_format: result.input_format,
    electron: result.electron,
    roles: result.roles,
    hosts: result.hosts,
    collections: Object.fromEntries(COLLECTIONS.map((name) => [name, result[name].length])),
    phases: result.phases,
    parent_coverage: coverage,
    digest: canonicalSha256(result),
  };
}

/** `analyze_javascript_application`: inventory, Electron roles, module graph and facts of a JavaScript application. */
export const analyzeJavascriptApplicationTool = defineTool({
  name: 'analyze_javascript_application',
  title: 'Analyze JavaScript application',
  description:
    'Analyzes a JavaScript or Electron application without running it. Returns Evidence: assets, source maps, Electron roles, module graph (files, bundled and source modules, edges, exports), strings, URLs, IPC channels, eval sites and Node built-ins, with coverage per phase and per-file unknowns. For a large app use detail "summary", then inspect_analysis_view.',
  input: InputSchema,
  result: z.union([JavascriptApplicationSchema, JavascriptApplicationSummarySchema]),
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
    const ledger = context.ledger as Retaining | null;
    if (input.detail === 'summary' && typeof ledger?.retain !== 'function') {
      throw new ReaError('capability_unavailable', 'detail "summary" needs a session that retains Evidence.', {
        details: { capability: 'session-retention', alternatives: [] },
        remediation: 'Call with detail "complete", or through a server session that retains Evidence.',
      });
    }
    const { analyzeApplication } = await import('../analysis/analyze.js');
    const outcome = await analyzeApplication(input.path, {
      integrityPolicy: input.integrity_policy,
      signal: context.signal,
      onProgress: (message, phase) => context.progress.report(message, phase),
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
      parameters: { detail: input.detail, integrity_policy: input.integrity_policy },
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
    const parent = sealEvidence({ ...complete, operation: 'analyze_javascript_application' });
    // Nothing is retained once the call is cancelled; retaining is the last step before returning.
    throwIfAborted(context.signal, 'publication');
    ledger!.retain!(parent as EvidenceRecord);
    return {
      ...complete,
      normalized_result: summarize(outcome.result, parent.evidence_id, parent.coverage),
      confidence: 'derived' as const,
      evidence_links: [parent.evidence_id],
    };
  },
});
