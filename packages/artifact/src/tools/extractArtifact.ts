import { rm, stat } from 'node:fs/promises';
import { z } from 'zod';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { ExtractionResultSchema } from '../schemas.js';
import { ARTIFACT_PROVIDER, artifactProfile, policyInput } from './common.js';

const ExtractInputSchema = z.strictObject({
  path: z.string().min(1).describe('Local path of a ZIP-based package (APK, JAR, …) or an ASAR archive.'),
  select: z
    .array(z.string().min(1))
    .optional()
    .describe(
      'Logical paths to extract (a directory selects everything below it; "lib/inner.zip!/a.txt" reaches into a nested ZIP or ASAR entry, written at that logical path); default everything.',
    ),
  integrity_policy: policyInput,
  max_bytes: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'Bytes to write across all files (default 2 GiB); past it the call is refused and nothing it wrote is kept.',
    ),
  max_entries: z.number().int().min(1).optional().describe('Files to write (default 100000).'),
  max_ratio: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("Largest ratio of an entry's written to compressed bytes, judged past 1 MiB (default 200)."),
  max_nested_bytes: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Bytes of selected nested containers held in memory (default 256 MiB).'),
});

/** `extract_artifact`: safe extraction of regular files into a fresh REA-created directory. */
export const extractArtifactTool = defineTool({
  name: 'extract_artifact',
  title: 'Extract artifact',
  description:
    'Extracts the selected regular files of a ZIP-based package or an ASAR archive (with its .asar.unpacked companion) into a fresh directory that REA creates with mode 0700 in the temporary directory on every call (an earlier output is never replaced or changed), verifying CRC-32/sizes or ASAR hashes as it writes. Refuses absolute paths, .. segments, NUL bytes, device files, outward symlinks, names too long for the file system and entries that differ only in letter case; never writes outside the directory. Bounded by max_bytes, max_entries, max_ratio and the free disk space: past one, resource_constraint and nothing this call wrote is kept. Returns Evidence listing the files with their SHA-256; the directory path is in local.output_directory. Bytes of the file outside a ZIP (a stub in front of it, data after it) are not extracted and are stated as limitations.',
  input: ExtractInputSchema,
  result: ExtractionResultSchema,
  examples: [
    { input: { path: '/tmp/app.apk', select: ['classes.dex'] }, description: 'Extract one entry of an APK.' },
    {
      input: { path: '/tmp/resources/app.asar', integrity_policy: 'record-and-continue' },
      description: 'Extract an Electron archive.',
    },
  ],
  effects: { ...RECORDS_EVIDENCE, writesFilesystem: true, idempotent: false },
  produces: 'evidence',
  async run(input, context) {
    const { extract } = await import('../extract/extract.js');
    const { fileSha256 } = await import('../engine/fileHash.js');
    // Every call extracts into a fresh directory of its own. The archive (the Evidence subject) is
    // hashed on a worker thread while its entries are extracted.
    const info = await stat(input.path).catch(() => null);
    const stop = new AbortController();
    const signal = AbortSignal.any([context.signal, stop.signal]);
    const hashing = info?.isFile() ? fileSha256(input.path, signal) : null;
    // Settled below in every case; never left unhandled meanwhile.
    hashing?.catch(() => undefined);
    const budgets = {
      ...(input.max_bytes !== undefined ? { max_bytes: input.max_bytes } : {}),
      ...(input.max_entries !== undefined ? { max_entries: input.max_entries } : {}),
      ...(input.max_ratio !== undefined ? { max_ratio: input.max_ratio } : {}),
      ...(input.max_nested_bytes !== undefined ? { max_nested_bytes: input.max_nested_bytes } : {}),
    };
    let outcome: Awaited<ReturnType<typeof extract>>;
    try {
      outcome = await extract(input.path, {
        integrityPolicy: input.integrity_policy,
        ...(input.select ? { select: input.select } : {}),
        budgets,
        signal: context.signal,
      });
    } catch (error) {
      // A failed extraction stops the hash and waits for its stream to close.
      stop.abort();
      await hashing?.catch(() => undefined);
      throw error;
    }
    const size = info?.size ?? 0;
    // The subject's hash; should it fail (the file went away meanwhile), the output is not left unreported.
    const sha256 = await (hashing ?? fileSha256(input.path, context.signal)).catch(async (error: unknown) => {
      await rm(outcome.outputDirectory, { recursive: true, force: true });
      throw error;
    });
    const contradicted = outcome.result.integrity_contradictions.length > 0;
    return {
      subject: { format: outcome.result.format, sha256, size },
      provider: ARTIFACT_PROVIDER,
      analysis_profile: artifactProfile('extraction', { integrity_policy: input.integrity_policy }),
      parameters: { integrity_policy: input.integrity_policy, select: input.select ?? null },
      normalized_result: outcome.result,
      raw_result: null,
      confidence: 'observed' as const,
      limitations: outcome.limitations,
      coverage: {
        status: contradicted ? ('partial' as const) : ('complete' as const),
        reasons: contradicted ? ['some extracted files contradict their declared integrity'] : [],
      },
      locations: [],
      evidence_links: [],
      local: { path: input.path, output_directory: outcome.outputDirectory },
    };
  },
});
