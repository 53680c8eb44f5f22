import { z } from 'zod';

/** What `capture_web_screenshot` captured: the page, the element (if any), and the retained PNG. */
export const WebScreenshotSchema = z.strictObject({
  endpoint: z.string(),
  target: z.strictObject({ id: z.string(), url: z.string() }),
  selector: z.string().nullable().describe('The element captured, or null for the viewport.'),
  path: z.string().describe('The PNG, named by the SHA-256 of its bytes.'),
  sha256: z.string(),
  size: z.number().int(),
  width: z.number().int(),
  height: z.number().int(),
});

/** A `capture_web_screenshot` result. */
export type WebScreenshot = z.infer<typeof WebScreenshotSchema>;

const ImageSchema = z.strictObject({ path: z.string(), width: z.number().int(), height: z.number().int() });

/** What `compare_web_screenshots` found. */
export const ScreenshotComparisonSchema = z.strictObject({
  before: ImageSchema,
  after: ImageSchema,
  threshold: z.number(),
  total_pixels: z.number().int(),
  differing_pixels: z.number().int(),
  differing_ratio: z.number().describe('differing_pixels / total_pixels.'),
  identical: z.boolean(),
  diff_path: z.string().describe('The diff PNG: differing pixels red over the faded before image.'),
});

/** A `compare_web_screenshots` result. */
export type ScreenshotComparison = z.infer<typeof ScreenshotComparisonSchema>;
