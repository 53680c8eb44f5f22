import { z } from 'zod';
import { ReaError, RetainedEvidenceRefSchema } from '@rea/evidence';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import type { ToolContext } from '@rea/provider-kit';
import { resolveSide } from '../compare/sides.js';
import { ScreenshotComparisonSchema, WebScreenshotSchema } from '../screenshot/schema.js';
import { BROWSER_PROVIDER, browserProfile } from './common.js';

const REF = { kind: 'retained-evidence', evidence_id: `ev_${'4'.repeat(64)}` } as const;
const REF2 = { kind: 'retained-evidence', evidence_id: `ev_${'5'.repeat(64)}` } as const;

const ImageInput = z
  .union([z.strictObject({ path: z.string().min(1).max(4096) }), RetainedEvidenceRefSchema])
  .describe('{ path } of a PNG file, or a retained capture_web_screenshot reference.');

/** The PNG a side names, and the retained capture it came from (if any). */
function sidePath(value: z.output<typeof ImageInput>, field: string, context: ToolContext) {
  if ('path' in value) return { path: value.path, evidenceId: null };
  const side = resolveSide(value, WebScreenshotSchema, 'capture_web_screenshot', field, context);
  return { path: side.value.path, evidenceId: side.evidenceId };
}

/** `compare_web_screenshots`: a pixel diff of two PNGs, with a diff image. Contacts no browser. */
export const compareWebScreenshotsTool = defineTool({
  name: 'compare_web_screenshots',
  title: 'Compare web screenshots',
  description:
    'Compares two PNGs of the same size pixel by pixel without contacting a browser: counts the differing pixels (colour distance above threshold) and their ratio, and writes a diff image (differing pixels red) to diff_path or to a fresh directory it reports. Each side a PNG path or a retained capture_web_screenshot.',
  input: z.strictObject({
    before: ImageInput,
    after: ImageInput,
    threshold: z.number().min(0).max(1).default(0.1).describe('Colour distance a pixel may differ by, 0 to 1.'),
    diff_path: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe('File to write the diff PNG to (replaced if present); not a directory.'),
  }),
  result: ScreenshotComparisonSchema,
  examples: [
    {
      input: { before: REF, after: REF2 },
      description: 'Two retained screenshots of a page, before and after a change.',
    },
  ],
  effects: { ...RECORDS_EVIDENCE, writesFilesystem: true },
  produces: 'evidence',
  run: async (input, context) => {
    const before = sidePath(input.before, 'before', context);
    const after = sidePath(input.after, 'after', context);
    // The PNG codec (pngjs, pixelmatch) loads with the first comparison, not with the provider.
    const { diffImages } = await import('../engine/png.js');
    const { checkDiffPath, readPng, writePng } = await import('../screenshot/files.js');
    if (input.diff_path !== undefined) checkDiffPath(input.diff_path);
    const a = readPng(before.path, 'before');
    const b = readPng(after.path, 'after');
    if (a.width !== b.width || a.height !== b.height) {
      throw new ReaError(
        'invalid_request',
        `The screenshots differ in size: before is ${a.width}x${a.height}, after is ${b.width}x${b.height}.`,
        {
          details: {
            reason: 'dimensions-mismatch',
            before: { path: before.path, width: a.width, height: a.height },
            after: { path: after.path, width: b.width, height: b.height },
          },
          remediation: 'Capture both at the same viewport size, or of the same element at the same size.',
        },
      );
    }
    const { differing, diff } = diffImages(a, b, input.threshold);
    const written = writePng(diff, input.diff_path ?? null);
    const total = a.width * a.height;
    return {
      subject: null,
      provider: BROWSER_PROVIDER,
      analysis_profile: browserProfile('screenshot-compare', { threshold: input.threshold }),
      parameters: {
        before: before.path,
        after: after.path,
        threshold: input.threshold,
        diff_path: input.diff_path ?? null,
      },
      normalized_result: {
        before: { path: before.path, width: a.width, height: a.height },
        after: { path: after.path, width: b.width, height: b.height },
        threshold: input.threshold,
        total_pixels: total,
        differing_pixels: differing,
        differing_ratio: total === 0 ? 0 : differing / total,
        identical: differing === 0,
        diff_path: written.path,
      },
      raw_result: null,
      confidence: 'observed' as const,
      limitations: [],
      coverage: { status: 'complete' as const, reasons: [] },
      locations: [],
      evidence_links: [before.evidenceId, after.evidenceId].filter((id): id is string => id !== null),
      ...(written.directory ? { local: { diff_directory: written.directory } } : {}),
    };
  },
});
