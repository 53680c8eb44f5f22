import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { canonicalSha256 } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { ExtractionResultSchema } from '../schemas.js';
import { ARTIFACT_PROVIDER, artifactProfile, pathInput, policyInput } from './common.js';

const ExtractInputSchema = z.strictObject({
  path: pathInput,
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
    .describe('Bytes to write across all files (default 2 GiB); past it the call is refused and nothing is kept.'),
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

/** The output directory's key: the same archive bytes, selection and policy extract to one place. */
function outputKey(sha256: string, select: readonly string[] | undefined, policy: string): string {
  return canonicalSha256({ archive: sha256, select: select ? [...select] : null, integrity_policy: policy }).slice(
    0,
    24,
  );
}

/** `extract_artifact`: safe extraction of regular files into a fresh REA-created directory. */
export const extractArtifactTool = defineTool({
  name: 'extract_artifact',
  title: 'Extract artifact',
  description:
    'Extracts the selected regular files of a ZIP-based package or an ASAR archive (with its .asar.unpacked companion) into a directory that REA creates with mode 0700 (rea-extract-<key> in the temporary directory; the same archive, selection and policy extract to the same directory, replacing the earlier output), verifying CRC-32/sizes or ASAR hashes as it writes. Refuses absolute paths, .. segments, NUL bytes, device files, outward symlinks, names too long for the file system and entries that differ only in letter case; never writes outside the directory. Bounded by max_bytes, max_entries, max_ratio and the free disk space: past one, resource_constraint and nothing is kept. Returns Evidence listing the files with their SHA-256; the directory path is in local.output_directory. Bytes of the file outside a ZIP (a stub in front of it, data after it) are not extracted and are stated as limitations.',
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
    // The output directory is named after the archive's bytes and the selection, so that a repeated
    // call replaces its earlier output instead of adding another directory. The archive is hashed on
    // a worker thread while its entries are extracted: the name is needed only once every file is written.
    const info = await stat(input.path).catch(() => null);
    const stop = new AbortController();
    const signal = AbortSignal.any([context.signal, stop.signal]);
    const hashing = info?.isFile() ? fileSha256(input.path, signal) : null;
    const key = hashing?.then((sha256) => outputKey(sha256, input.select, input.integrity_policy));
    // Both are settled below (or by extract) in every case; never left unhandled meanwhile.
    hashing?.catch(() => undefined);
    key?.catch(() => undefined);
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
        ...(key ? { outputKey: key } : {}),
        signal: context.signal,
      });
    } catch (error) {
      // A failed extraction stops the hash and waits for its stream to close.
      stop.abort();
      await hashing?.catch(() => undefined);
      throw error;
    }
    const size = info?.size ?? 0;
    // extract() refused anything but a file, and published under the digest's name: it was taken.
    const sha256 = await hashing!;
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
