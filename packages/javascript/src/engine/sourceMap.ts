import { TraceMap, decodedMappings, originalPositionFor } from '@jridgewell/trace-mapping';

/** The generated text one source of a map covers: from its first mapped segment to where its last ends. */
export interface GeneratedRange {
  /** Index into {@link DecodedSourceMap.sources}. */
  source: number;
  /** 0-based line and column of the first segment. */
  startLine: number;
  startColumn: number;
  /** 0-based line of the last segment, and the column where the next segment on that line starts (null: line end). */
  endLine: number;
  endColumn: number | null;
}

/** What the analysis reads of one source map: its resolved source names and embedded contents. */
export interface DecodedSourceMap {
  /** Source names resolved against the map's `sourceRoot`, in map order (null where the map has none). */
  readonly sources: ReadonlyArray<string | null>;
  /** `sourcesContent`, aligned with `sources` (null entries where the map embeds no content). */
  readonly contents: ReadonlyArray<string | null | undefined>;
  /** The generated range of each source that has mapped segments, in source order. */
  ranges(): GeneratedRange[];
  /** The original name the map records at a generated position (0-based line and column), or null. */
  nameAt(line: number, column: number): string | null;
  /** The source (as in {@link sources}) the map records at a generated position (0-based line and column), or null. */
  sourceAt(line: number, column: number): string | null;
}

/** Per source, its first segment and the end of its last one, in one pass over the decoded mappings. */
function rangesOf(map: TraceMap): GeneratedRange[] {
  const byIndex = new Map<number, GeneratedRange>();
  decodedMappings(map).forEach((segments, line) => {
    segments.forEach((segment, index) => {
      if (segment.length < 4) return;
      const source = segment[1]!;
      const next = segments[index + 1];
      const endColumn = next === undefined ? null : next[0];
      const range = byIndex.get(source);
      if (range === undefined) {
        byIndex.set(source, { source, startLine: line, startColumn: segment[0], endLine: line, endColumn });
      } else {
        range.endLine = line;
        range.endColumn = endColumn;
      }
    });
  });
  return [...byIndex.values()].sort((a, b) => a.source - b.source);
}

/**
 * Decodes source-map JSON `text` through the source-map library (the package's one import of it).
 * Throws the library's error when the text is not a valid map.
 */
export function decodeSourceMap(text: string): DecodedSourceMap {
  const map = new TraceMap(text);
  return {
    sources: map.resolvedSources,
    contents: map.sourcesContent ?? [],
    ranges: () => rangesOf(map),
    nameAt: (line, column) => originalPositionFor(map, { line: line + 1, column }).name ?? null,
    sourceAt: (line, column) => originalPositionFor(map, { line: line + 1, column }).source ?? null,
  };
}
