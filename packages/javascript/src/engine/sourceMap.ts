import { TraceMap } from '@jridgewell/trace-mapping';

/** What the analysis reads of one source map: its resolved source names and embedded contents. */
export interface DecodedSourceMap {
  /** Source names resolved against the map's `sourceRoot`, in map order (null where the map has none). */
  readonly sources: ReadonlyArray<string | null>;
  /** `sourcesContent`, aligned with `sources` (null entries where the map embeds no content). */
  readonly contents: ReadonlyArray<string | null | undefined>;
}

/**
 * Decodes source-map JSON `text` through the source-map library (the package's one import of it).
 * Throws the library's error when the text is not a valid map.
 */
export function decodeSourceMap(text: string): DecodedSourceMap {
  const map = new TraceMap(text);
  return { sources: map.resolvedSources, contents: map.sourcesContent ?? [] };
}
