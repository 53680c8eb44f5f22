import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import { ReaError, importBundle, normalizeError, replaceableDestination, throwIfAborted } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import type { AnyToolContract } from '@rea/provider-kit';
import { formatEvidence, printable } from '../format.js';
import type { OutputFormat } from '../format.js';
import type { Invocation } from '../invocation.js';
import { examplesHelp } from '../examples.js';
import { openTarget } from '../target.js';
import type { OpenedTarget } from '../target.js';
import { detectTarget } from './detect.js';
import type { DetectedTarget, TargetKind } from './detect.js';

/** One step of an overview plan: the tool and its input for the target's path. */
interface PlannedStep {
  tool: string;
  input: (path: string) => object;
}

/** An Android package (APK, app bundle, split-APK set): its inventory, then the Android inspection. */
const ANDROID_PACKAGE: readonly PlannedStep[] = [
  { tool: 'inspect_artifact', input: (path) => ({ path }) },
  { tool: 'inspect_android_package', input: (path) => ({ path }) },
];

/** The overview tools `rea analyze` runs for each kind of target, in order, with their input. */
export const OVERVIEW_PLAN: Readonly<Record<TargetKind, readonly PlannedStep[]>> = {
  'native-binary': [
    { tool: 'inspect_binary_layout', input: (path) => ({ path }) },
    { tool: 'inspect_artifact', input: (path) => ({ path }) },
  ],
  archive: [{ tool: 'inspect_artifact', input: (path) => ({ path }) }],
  apk: ANDROID_PACKAGE,
  aab: ANDROID_PACKAGE,
  'apk-set': ANDROID_PACKAGE,
  // A DEX file is one file, not a container: the Android inspection says all an inventory would.
  dex: [{ tool: 'inspect_android_package', input: (path) => ({ path }) }],
  asar: [
    { tool: 'inspect_artifact', input: (path) => ({ path }) },
    { tool: 'analyze_javascript_application', input: (path) => ({ path }) },
  ],
  directory: [
    { tool: 'inspect_artifact', input: (path) => ({ path }) },
    { tool: 'analyze_javascript_application', input: (path) => ({ path }) },
  ],
  javascript: [
    { tool: 'inspect_artifact', input: (path) => ({ path }) },
    { tool: 'analyze_javascript_application', input: (path) => ({ path }) },
  ],
  file: [{ tool: 'inspect_artifact', input: (path) => ({ path }) }],
  'evidence-bundle': [],
};

/** One step of an analysis: the record it produced, or why it produced none. */
export interface AnalyzeStep {
  tool: string;
  evidence_id: string | null;
  /** Why the step was skipped or failed (the error code and message), or null. */
  note: string | null;
}

/** What `rea analyze --format json` prints. */
export interface AnalyzeReport {
  target: DetectedTarget;
  steps: AnalyzeStep[];
  records: EvidenceRecord[];
  export: { path: string; record_count: number; sha256: string } | null;
}

/** Deep overview tools run on a native binary through the selected provider (`auto` by default). */
export const DEEP_OVERVIEW: readonly string[] = ['binary_overview'];

/** Every tool an analysis of this kind of target may run: only their providers need to load. */
function toolsOf(kind: TargetKind): string[] {
  return [...OVERVIEW_PLAN[kind].map((step) => step.tool), ...(kind === 'native-binary' ? DEEP_OVERVIEW : [])];
}

async function runStep(
  invocation: Invocation,
  contract: AnyToolContract,
  input: object,
  quiet: boolean,
  session?: OpenedTarget['view'],
): Promise<{ step: AnalyzeStep; record: EvidenceRecord | null; failure?: ReaError }> {
  const context = invocation.toolContext(quiet, session);
  context.progress.report(`${contract.name}…`);
  try {
    const outcome = await executeTool(contract, input, context);
    if (outcome.kind !== 'evidence')
      return { step: { tool: contract.name, evidence_id: null, note: null }, record: null };
    const record = await invocation.ledger.retainAsync(outcome.record, invocation.scope.signal);
    return { step: { tool: contract.name, evidence_id: record.evidence_id, note: null }, record };
  } catch (error) {
    // A failed overview step is part of the report; cancellation ends the whole analysis.
    if (invocation.scope.signal.aborted) throw error;
    const failure = normalizeError(error, contract.name);
    return { step: { tool: contract.name, evidence_id: null, note: describe(failure) }, record: null, failure };
  } finally {
    context.progress.clear();
  }
}

/**
 * The target as the inventory read it: a file whose first bytes announce nothing but which the inventory
 * read as a ZIP found from its end (behind a prefix: a self-extracting archive, a JAR behind a launcher
 * script) is reported as the archive it is, as its records say; any other file by the type its magic bytes
 * gave the inventory (tar, gzip, pdf, png, …), when they gave one.
 */
function refined(target: DetectedTarget, records: readonly EvidenceRecord[]): DetectedTarget {
  if (target.kind !== 'file') return target;
  const inventory = records.find((record) => record.operation === 'inspect_artifact');
  if (inventory?.subject?.format === 'zip') return { ...target, kind: 'archive', format: 'zip' };
  const fileType = (inventory?.normalized_result as { file_type?: unknown } | undefined)?.file_type;
  return typeof fileType === 'string' && fileType !== 'unknown' ? { ...target, format: fileType } : target;
}

function describe(error: unknown): string {
  const e = normalizeError(error);
  return `${e.code}: ${e.message}`;
}

async function runSteps(
  invocation: Invocation,
  target: DetectedTarget,
  tools: readonly AnyToolContract[],
  options: { quiet: boolean; provider: string | undefined },
) {
  const steps: AnalyzeStep[] = [];
  const records: EvidenceRecord[] = [];
  /** The errors of the steps that failed, in order. */
  const failures: ReaError[] = [];
  if (target.kind === 'evidence-bundle') {
    const bundle = await importBundle(target.path, { signal: invocation.scope.signal });
    await invocation.ledger.mergeAsync(bundle.records, invocation.scope.signal);
    records.push(...bundle.records);
    steps.push({
      tool: 'import_evidence_bundle',
      evidence_id: null,
      note: `${bundle.records.length} verified record(s)`,
    });
    return { steps, records, failures };
  }
  const byName = new Map(tools.map((t) => [t.name, t]));
  const collect = ({ step, record, failure }: Awaited<ReturnType<typeof runStep>>): void => {
    steps.push(step);
    if (record) records.push(record);
    if (failure) failures.push(failure);
  };
  for (const step of OVERVIEW_PLAN[target.kind]) {
    throwIfAborted(invocation.scope.signal, step.tool);
    const contract = byName.get(step.tool);
    if (contract === undefined)
      steps.push({ tool: step.tool, evidence_id: null, note: 'not in this installation’s catalog' });
    else collect(await runStep(invocation, contract, step.input(target.path), options.quiet));
  }
  const deep = DEEP_OVERVIEW.map((name) => byName.get(name)).filter((c) => c !== undefined);
  if (target.kind !== 'native-binary' || deep.length === 0) return { steps, records, failures };
  const progress = invocation.toolContext(options.quiet).progress;
  let opened: OpenedTarget;
  try {
    opened = await openTarget({
      path: target.path,
      provider: options.provider,
      providers: await (invocation.host.loadProvidersFor?.(toolsOf(target.kind)) ?? invocation.host.loadProviders()),
      env: invocation.io.env,
      signal: invocation.scope.signal,
      progress,
    });
  } catch (error) {
    // A provider the user named (--provider, or REA_ANALYSIS_PROVIDER, its default) that cannot analyze
    // the binary fails the command; with auto, the report keeps what the other steps found and says
    // why the deep overview is missing.
    const named = options.provider ?? invocation.io.env['REA_ANALYSIS_PROVIDER'];
    if (invocation.scope.signal.aborted || (named !== undefined && named.trim() !== '' && named.trim() !== 'auto'))
      throw error;
    const failure = normalizeError(error, 'open_binary');
    steps.push({ tool: 'open_binary', evidence_id: null, note: describe(failure) });
    failures.push(failure);
    return { steps, records, failures };
  } finally {
    progress.clear();
  }
  try {
    for (const contract of deep) collect(await runStep(invocation, contract, {}, options.quiet, opened.view));
  } finally {
    await opened.close();
  }
  return { steps, records, failures };
}

const human = printable((report: AnalyzeReport): string => {
  const parts = [`${report.target.path}: ${report.target.kind} (${report.target.format})`, ''];
  for (const record of report.records) parts.push(formatEvidence(record, true));
  const notes = report.steps.filter((s) => s.note !== null);
  if (notes.length > 0) parts.push('notes:', ...notes.map((s) => `  ${s.tool}: ${s.note}`), '');
  parts.push('evidence ids:', ...report.records.map((r) => `  ${r.evidence_id}  ${r.operation}`));
  if (!report.export) parts.push('', 'Complete records: --format json. Keep them as a bundle: --export <file>.');
  if (report.export) parts.push('', `exported ${report.export.record_count} record(s) to ${report.export.path}`);
  return `${parts.join('\n')}\n`;
});

/** `rea analyze <path>`: detect, run the matching overview tools, print one report. */
export function analyzeCommand(invocation: Invocation): Command {
  return new Command('analyze')
    .summary('detect what a path is and run the matching overview tools')
    .description(
      "REA's main job for a person. Detects what <path> is, runs the matching overview tools, and prints one readable report with the evidence ids. A native binary (ELF, PE, Mach-O): inspect_binary_layout, inspect_artifact and binary_overview (--provider). An Android package (.apk, .aab, .apks or .xapk, a folder of split APKs): inspect_artifact and inspect_android_package (manifest, signatures, DEX). A DEX file: inspect_android_package. An ASAR, an application directory or a .js/.mjs/.cjs file: inspect_artifact and analyze_javascript_application. Any other archive or file: inspect_artifact. An exported evidence bundle: its records, verified. --format json prints the records; --export <file> writes them as an evidence bundle.",
    )
    .addHelpText(
      'after',
      examplesHelp(['rea analyze ./program', 'rea analyze ./program --export evidence.json --quiet']),
    )
    .argument('<path>', 'the file or directory to analyze')
    .addOption(new Option('--format <format>', 'output format').choices(['human', 'json']).default('human'))
    .option('--export <file>', 'write the records as an evidence bundle to <file> (atomically)')
    .option(
      '--provider <id>',
      'deep-analysis provider for native binaries: an id or auto (default: REA_ANALYSIS_PROVIDER, else auto)',
    )
    .option('--quiet', 'no progress on stderr')
    .action(
      async (path: string, options: { format: OutputFormat; export?: string; quiet?: boolean; provider?: string }) => {
        const target = await detectTarget(resolve(invocation.io.cwd, path));
        // A destination the bundle could never be written to is refused before the analysis runs.
        if (options.export !== undefined) {
          replaceableDestination(
            resolve(invocation.io.cwd, options.export),
            'The bundle destination',
            'evidence-bundle.json',
          );
        }
        const { host } = invocation;
        const names = toolsOf(target.kind);
        const tools = target.kind === 'evidence-bundle' ? [] : await (host.loadToolsFor?.(names) ?? host.loadTools());
        const { steps, records, failures } = await runSteps(invocation, target, tools, {
          quiet: options.quiet === true,
          provider: options.provider,
        });
        // Nothing could be analyzed: the first step's own error says why (a malformed archive, a file
        // that cannot be read), not a generic one.
        if (records.length === 0 && failures.length > 0) throw failures[0]!;
        if (records.length === 0) {
          throw new ReaError(
            'capability_unavailable',
            `No overview tool could analyze ${target.path} (${target.kind}).`,
            {
              details: {
                capability: `analyze:${target.kind}`,
                steps: steps.map((s) => ({ tool: s.tool, note: s.note })),
              },
              remediation: 'Run `rea doctor` to see which providers are ready, or call a specific tool command.',
            },
          );
        }
        let exported: AnalyzeReport['export'] = null;
        if (options.export !== undefined) {
          const result = await invocation.ledger.exportBundle(resolve(invocation.io.cwd, options.export), {
            signal: invocation.scope.signal,
          });
          exported = { path: result.path, record_count: result.record_count, sha256: result.sha256 };
        }
        const report: AnalyzeReport = { target: refined(target, records), steps, records, export: exported };
        await invocation.out(options.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : human(report));
      },
    );
}
