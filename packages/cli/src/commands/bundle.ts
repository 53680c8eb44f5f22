import { Command, Option } from 'commander';
import { ReaError, importBundle, readBundleSummary } from '@rea/evidence';
import type { SummaryFilters } from '@rea/evidence';
import { formatEvidence } from '../format.js';
import type { OutputFormat } from '../format.js';
import { parseJsonText } from '../jsonText.js';
import type { Invocation } from '../invocation.js';
import { resolve } from 'node:path';

interface BundleRequest {
  path: string;
  detail: 'complete' | 'summary';
  filters?: SummaryFilters;
}

/** Parses the `inspect-evidence-bundle` argument: `{ path, detail?, filters? }` (filters need summary). */
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

/** `rea inspect-evidence-bundle '<json>'`: validates a local bundle; full records or summaries. */
export function inspectBundleCommand(invocation: Invocation): Command {
  return new Command('inspect-evidence-bundle')
    .summary('validate an exported evidence bundle and print its records or summaries')
    .description(
      'Reads a local evidence bundle within the import memory budget, verifies every record (schema, profile digest, id) and prints the records, or with detail "summary" one payload-free summary per record, optionally narrowed by exact-match filters (evidence_id, operation, target_sha256, analysis_profile_digest, procedure_address).\n\nExample: rea inspect-evidence-bundle \'{"path":"/tmp/evidence.json","detail":"summary","filters":{"operation":"analyze_function"}}\' --format json',
    )
    .argument('<request>', 'JSON: {"path": "...", "detail": "complete"|"summary", "filters": {...}}')
    .addOption(new Option('--format <format>', 'output format').choices(['human', 'json']).default('human'))
    .action(async (text: string, options: { format: OutputFormat }) => {
      const request = parseBundleRequest(text, invocation.io.cwd);
      const signal = invocation.scope.signal;
      if (request.detail === 'summary') {
        const summary = await readBundleSummary(request.path, {
          signal,
          ...(request.filters ? { filters: request.filters } : {}),
        });
        if (options.format === 'json') return invocation.out(`${JSON.stringify(summary, null, 2)}\n`);
        const lines = [
          `${request.path}: ${summary.record_count} record(s), ${summary.byte_size} bytes; ${summary.records.length} shown`,
          ...summary.records.map((r) => `  ${r.evidence_id}  ${r.operation}  ${r.provider.id} ${r.provider.version}`),
        ];
        return invocation.out(`${lines.join('\n')}\n`);
      }
      const bundle = await importBundle(request.path, { signal });
      if (options.format === 'json') return invocation.out(`${JSON.stringify(bundle, null, 2)}\n`);
      const header = `${request.path}: ${bundle.records.length} verified record(s), ${bundle.byte_size} bytes\n`;
      return invocation.out(header + bundle.records.map((r) => formatEvidence(r)).join('\n'));
    });
}
