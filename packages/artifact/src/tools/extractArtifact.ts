import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { z } from 'zod';
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
});

/** `extract_artifact`: safe extraction of regular files into a fresh REA-created directory. */
export const extractArtifactTool = defineTool({
  name: 'extract_artifact',
  title: 'Extract artifact',
  description:
    'Extracts the selected regular files of a ZIP-based package or an ASAR archive (with its .asar.unpacked companion) into a fresh directory that REA creates with mode 0700, verifying CRC-32/sizes or ASAR hashes as it writes. Refuses absolute paths, .. segments, NUL bytes, device files and outward symlinks; never writes outside the directory. Returns Evidence listing the files with their SHA-256; the directory path is in local.output_directory.',
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
    const { digestStream } = await import('../hashing.js');
    const outcome = await extract(input.path, {
      integrityPolicy: input.integrity_policy,
      ...(input.select ? { select: input.select } : {}),
      signal: context.signal,
    });
    const [{ size }, { sha256 }] = await Promise.all([
      stat(input.path),
      digestStream(createReadStream(input.path), { signal: context.signal }),
    ]);
    const contradicted = outcome.result.integrity_contradictions.length > 0;
    return {
      subject: { format: outcome.result.format, sha256, size },
      provider: ARTIFACT_PROVIDER,
      analysis_profile: artifactProfile('extraction', { integrity_policy: input.integrity_policy }),
      parameters: { integrity_policy: input.integrity_policy, select: input.select ?? null },
      normalized_result: outcome.result,
      raw_result: null,
      confidence: 'observed' as const,
      limitations: [],
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
