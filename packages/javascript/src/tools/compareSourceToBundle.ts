import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { ReaError } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { MAX_SOURCE_ROWS, MAX_TREE_FILES, compareSourceTree } from '../compare/sourceTree.js';
import { ApplicationInputSchema, application, derivedCoverage } from './application.js';
import { JAVASCRIPT_PROVIDER, javascriptProfile } from './common.js';

/** `normalized_result` of `compare_source_to_bundle`. */
export const SourceComparisonSchema = z.strictObject({
  application_evidence_id: z.string(),
  sources: z.array(
    z.strictObject({
      node_id: z.string(),
      source: z.string(),
      status: z
        .enum(['identical', 'differs', 'missing', 'unverifiable'])
        .describe('Against sourcesContent; unverifiable: the map has none.'),
      path: z.string().nullable().describe('The file in source_root, null when missing.'),
    }),
  ),
  not_in_bundle: z
    .array(z.string())
    .describe('Source files of the tree no map names (build outputs and project files are in not_compared).'),
  not_compared: z
    .array(z.strictObject({ path: z.string(), reason: z.enum(['build-output', 'project-file']) }))
    .describe(
      'Files of the tree no map names that are no source module: build-output (identical to a file of the analyzed application, or a script ending in a sourceMappingURL comment) or project-file (package.json, lockfiles, tsconfig/jsconfig, *.config.* files).',
    ),
  truncated: z.boolean(),
});

async function directory(path: string): Promise<void> {
  const info = await stat(path).catch(() => null);
  if (info === null) {
    throw new ReaError('not_found', `The source tree ${path} does not exist.`, {
      details: { reason: 'missing', path },
      remediation: 'Pass the directory that holds the sources the bundle was built from.',
    });
  }
  if (!info.isDirectory()) {
    throw new ReaError('invalid_request', `The source tree ${path} is not a directory.`, {
      details: { reason: 'not-a-directory', path },
      remediation: 'Pass the directory that holds the sources the bundle was built from.',
    });
  }
}

/** `compare_source_to_bundle`: a source tree against a bundle through its source maps. */
export const compareSourceToBundleTool = defineTool({
  name: 'compare_source_to_bundle',
  title: 'Compare source to bundle',
  description:
    "A source directory against a bundle's source maps in analyze_javascript_application Evidence: each mapped source identical, differs from sourcesContent, missing or unverifiable, plus tree files no map names (node_modules skipped), with build outputs and project files (package.json, lockfiles, tsconfig, *.config.*) listed apart in not_compared.",
  input: z.strictObject({
    application: ApplicationInputSchema,
    source_root: z.string().min(1).describe('The source directory.'),
  }),
  result: SourceComparisonSchema,
  examples: [
    {
      input: {
        application: { kind: 'retained-evidence', evidence_id: `ev_${'3'.repeat(64)}` },
        source_root: '/tmp/src',
      },
      description: 'Check that a shipped bundle was built from this checkout.',
    },
  ],
  effects: RECORDS_EVIDENCE,
  produces: 'evidence',
  async run(input, context) {
    const { record, app } = application(input.application, context, 'application');
    await directory(input.source_root);
    const skipped: string[] = [];
    const comparison = await compareSourceTree(app, input.source_root, context.signal, skipped);
    const own = [
      ...(comparison.truncated ? ['comparison cut'] : []),
      ...(app.source_modules.length === 0 ? ['the analysis names no source-map sources'] : []),
      ...(skipped.length > 0
        ? [
            `${skipped.length} folder(s) or file(s) of the source tree vanished or could not be read, and were not compared: ${skipped.slice(0, 20).join(', ')}${skipped.length > 20 ? ', …' : ''}`,
          ]
        : []),
    ];
    return {
      subject: record.subject,
      provider: JAVASCRIPT_PROVIDER,
      analysis_profile: javascriptProfile('source-to-bundle', {
        max_tree_files: MAX_TREE_FILES,
        max_rows: MAX_SOURCE_ROWS,
      }),
      parameters: { application_evidence_id: record.evidence_id },
      normalized_result: { application_evidence_id: record.evidence_id, ...comparison },
      raw_result: null,
      confidence: 'observed' as const,
      limitations: own.map((message) => ({ kind: 'source-comparison', message })),
      coverage: derivedCoverage([record], own),
      locations: [],
      evidence_links: [record.evidence_id],
      local: { path: input.source_root },
    };
  },
});
