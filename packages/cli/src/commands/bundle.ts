import { Command, Option } from 'commander';
import { ReaError, importBundle, readBundleSummary } from '@rea/evidence';
import type { EvidenceRecord, SummaryFilters } from '@rea/evidence';
import { formatEvidence, printable } from '../format.js';
import type { OutputFormat } from '../format.js';
import { parseJsonText } from '../jsonText.js';
import type { Invocation } from '../invocation.js';
import { examplesHelp } from '../examples.js';
import { resolve } from 'node:path';

interface BundleRequest {
  path: string;
  detail: 'complete' | 'summary';
  filters?: SummaryFilters;
}

/** Parses the JSON request form of the `inspect-evidence-bundle` argument: `{ path, detail?, filters? }` (filters need summary). */
export function parseBundleRequest(text: string, cwd: string): BundleRequest {
  const value = parseJsonText(text, 'The inspect-evidence-bundle argument');
  const issues: Array<{ path: string; message: string }> = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issues.push({ path: '(root)', message: 'expected an object with path, detail and filters' });
  } else {
    const v = value as Record<string, unknown>;
    for (const key of Object.keys(v)) {
      if (!['path', 'detail', 'filters'].includes(key)) issues.push({ path: key, message: 'unknown property' });
    }
    if (typeof v['path'] !== 'string' || v['path'] === '')
      issues.push({ path: 'path', message: 'expected a file path' });
    if (v['detail'] !== undefined && v['detail'] !== 'complete' && v['detail'] !== 'summary') {
      issues.push({ path: 'detail', message: 'expected "complete" or "summary"' });
    }
    if (v['filters'] !== undefined && v['detail'] !== 'summary') {
      issues.push({ path: 'filters', message: 'filters require detail "summary"' });
    }
    if (issues.length === 0) {
      return {
        path: resolve(cwd, v['path'] as string),
        detail: (v['detail'] as 'complete' | 'summary' | undefined) ?? 'complete',
        ...(v['filters'] !== undefined ? { filters: v['filters'] as SummaryFilters } : {}),
      };
    }
  }
  throw new ReaError(
    'invalid_request',
    `Invalid inspect-evidence-bundle request: ${issues[0]!.path}: ${issues[0]!.message}.`,
    {
      operation: 'inspect_evidence_bundle',
      details: { issues },
    },
  );
}

const FILTERS = ['evidence_id', 'operation', 'target_sha256', 'analysis_profile_digest', 'procedure_address'] as const;

interface BundleOptions {
  format: OutputFormat;
  detail?: 'complete' | 'summary';
  evidenceId?: string;
  operation?: string;
  targetSha256?: string;
  analysisProfileDigest?: string;
  procedureAddress?: string;
}

/** The request of `rea inspect-evidence-bundle <path> [--detail summary] [--operation …]…`. */
export function bundleRequestOf(path: string, options: BundleOptions, cwd: string): BundleRequest {
  const filters: Record<string, string> = {};
  for (const key of FILTERS) {
    const value = options[key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()) as keyof BundleOptions];
    if (value !== undefined) filters[key] = value;
  }
  const detail = options.detail ?? (Object.keys(filters).length > 0 ? 'summary' : 'complete');
  if (detail === 'complete' && Object.keys(filters).length > 0) {
    throw new ReaError(
      'invalid_request',
      'Invalid inspect-evidence-bundle request: filters require detail "summary".',
      {
        operation: 'inspect_evidence_bundle',
        details: { issues: [{ path: 'filters', message: 'filters require detail "summary"' }] },
      },
    );
  }
  return { path: resolve(cwd, path), detail, ...(Object.keys(filters).length > 0 ? { filters } : {}) };
}

/** `rea inspect-evidence-bundle <path>`: validates a local bundle; full records or summaries. */
export function inspectBundleCommand(invocation: Invocation): Command {
  const command = new Command('inspect-evidence-bundle')
    .summary('validate an exported evidence bundle and print its records or summaries')
    .description(
      'Reads a local evidence bundle within the import memory budget, verifies every record (schema, profile digest, id) and prints the records, or with --detail summary one payload-free summary per record, optionally narrowed by exact-match filters (a filter implies --detail summary). The JSON request of earlier versions (\'{"path": …, "detail": …, "filters": {…}}\') is still accepted in place of the path.',
    )
    .addHelpText(
      'after',
      examplesHelp([
        'rea inspect-evidence-bundle evidence.json',
        'rea inspect-evidence-bundle evidence.json --operation inspect_artifact --format json',
      ]),
    )
    .argument('<path>', 'the evidence bundle file (as written by rea analyze --export or export-evidence-bundle)')
    .addOption(
      new Option('--detail <detail>', 'complete records, or one summary per record').choices(['complete', 'summary']),
    )
    .option('--evidence-id <id>', 'only the record with this evidence id (summary)')
    .option('--operation <tool>', 'only records of this operation, e.g. analyze_function (summary)')
    .option('--target-sha256 <sha256>', 'only records about this target (summary)')
    .option('--analysis-profile-digest <digest>', 'only records made with this analysis profile (summary)')
    .option('--procedure-address <address>', 'only records about the procedure at this address (summary)')
    .addOption(new Option('--format <format>', 'output format').choices(['human', 'json']).default('human'));
  return command.action(async (path: string, options: BundleOptions) => {
    const request = path.trimStart().startsWith('{')
      ? parseBundleRequest(path, invocation.io.cwd)
      : bundleRequestOf(path, options, invocation.io.cwd);
    const signal = invocation.scope.signal;
    if (request.detail === 'summary') {
      const summary = await readBundleSummary(request.path, {
        signal,
        ...(request.filters ? { filters: request.filters } : {}),
      });
      if (options.format === 'json') return invocation.out(`${JSON.stringify(summary, null, 2)}\n`);
      return invocation.out(summaryText(request.path, summary));
    }
    const bundle = await importBundle(request.path, { signal });
    if (options.format === 'json') return invocation.out(`${JSON.stringify(bundle, null, 2)}\n`);
    return invocation.out(bundleText(request.path, bundle.records, bundle.byte_size));
  });
}

const summaryText = printable(
  (path: string, summary: Awaited<ReturnType<typeof readBundleSummary>>): string =>
    `${[
      `${path}: ${summary.record_count} record(s), ${summary.byte_size} bytes; ${summary.records.length} shown`,
      ...summary.records.map((r) => `  ${r.evidence_id}  ${r.operation}  ${r.provider.id} ${r.provider.version}`),
    ].join('\n')}\n`,
);

const bundleText = printable(
  (path: string, records: EvidenceRecord[], size: number): string =>
    `${path}: ${records.length} verified record(s), ${size} bytes\n${records.map((r) => formatEvidence(r)).join('\n')}`,
);
