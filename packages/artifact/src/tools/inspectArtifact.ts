import { z } from 'zod';
import { SummaryViewSchema } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool, requireRetention, retainAndSummarize } from '@rea/provider-kit';
import { ArtifactInventorySchema } from '../schemas.js';
import { ARTIFACT_PROVIDER, artifactProfile, pathInput, policyInput } from './common.js';

const InspectInputSchema = z.strictObject({
  path: pathInput,
  detail: z
    .enum(['complete', 'summary'])
    .default('complete')
    .describe(
      'complete (default) returns the inventory Evidence; summary retains exactly that record in the session and returns its inspect_analysis_view summary, whose parent_evidence_id names it.',
    ),
  integrity_policy: policyInput,
  max_depth: z.number().int().min(0).max(32).optional().describe('Nesting depth to expand (default 4).'),
  max_entries: z.number().int().min(1).optional().describe('Entries to list across all containers (default 100000).'),
  max_bytes: z.number().int().min(0).optional().describe('Bytes to read and hash across all entries (default 8 GiB).'),
  max_nested_bytes: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Bytes of nested containers held in memory at once while expanding a chain (default 256 MiB).'),
});

/** `inspect_artifact`: inventory with streamed hashes, integrity checks and nested expansion. */
export const inspectArtifactTool = defineTool({
  name: 'inspect_artifact',
  title: 'Inspect artifact',
  description:
    'Inventories a shipped artifact without running it: ZIP and ZIP-based packages (APK, IPA, JAR, AAR, MSIX/AppX, NuGet, VSIX, wheel), Electron ASAR archives with their .asar.unpacked companions, directories and .app bundles, DMG images (macOS) and single files; a ZIP behind a self-extractor stub or with data appended is read as unzip reads it, the outside bytes stated. Lists every entry with kind, sizes, mode, symlink target, unpacked flag and streamed SHA-256; checks ZIP CRC-32/sizes and ASAR header hashes; expands nested containers within budgets. Returns Evidence; coverage is partial with reasons when a budget or contradiction limits it.',
  input: InspectInputSchema,
  result: z.union([ArtifactInventorySchema, SummaryViewSchema]),
  examples: [
    { input: { path: '/tmp/app.apk' }, description: 'Inventory an Android package.' },
    {
      input: { path: '/Applications/Example.app', detail: 'summary', integrity_policy: 'record-and-continue' },
      description: 'Summarize an application bundle, continuing past unpacked ASAR entries that were re-signed.',
    },
  ],
  effects: { ...RECORDS_EVIDENCE, launchesProcess: true },
  clientFeatures: { optional: ['progress'] },
  produces: 'evidence',
  async run(input, context) {
    const budgets = {
      ...(input.max_depth !== undefined ? { max_depth: input.max_depth } : {}),
      ...(input.max_entries !== undefined ? { max_entries: input.max_entries } : {}),
      ...(input.max_bytes !== undefined ? { max_bytes: input.max_bytes } : {}),
      ...(input.max_nested_bytes !== undefined ? { max_nested_bytes: input.max_nested_bytes } : {}),
    };
    const ledger = context.ledger;
    if (input.detail === 'summary') requireRetention(ledger);
    context.progress.report('reading the artifact', 'inventory');
    const { inspect } = await import('../inventory/inspect.js');
    const outcome = await inspect(input.path, {
      integrityPolicy: input.integrity_policy,
      budgets,
      signal: context.signal,
      platform: context.platform,
      supervisor: context.supervisor,
      onProgress: (message) => context.progress.report(message, 'inventory'),
    });
    context.progress.report(`${outcome.inventory.entry_count} entries inventoried`, 'inventory');
    const complete = {
      subject: outcome.subject,
      provider: ARTIFACT_PROVIDER,
      analysis_profile: artifactProfile('inventory', {
        integrity_policy: input.integrity_policy,
        budgets: outcome.inventory.budgets,
      }),
      parameters: {
        // The same for both details: a summary retains exactly the record "complete" returns.
        detail: 'complete',
        integrity_policy: input.integrity_policy,
        budgets: outcome.inventory.budgets,
      },
      normalized_result: outcome.inventory,
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
    return retainAndSummarize('inspect_artifact', complete, ledger, context.signal);
  },
});
