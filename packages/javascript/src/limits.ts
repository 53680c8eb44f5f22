/**
 * Bounds of the analysis that the tool contracts name, apart from the analysis itself: describing or
 * listing the tools must not load the parser and the analysis (they load with the first analysis).
 */

/** Longest string literal kept whole; longer values are cut and marked truncated. */
export const MAX_STRING_LENGTH = 256;
/** String literals kept per file; the rest are counted in a per-file unknown. */
export const MAX_STRINGS_PER_FILE = 2_000;
/** Facts of one kind (strings, URLs, …) kept across the whole application; the rest are counted. */
export const MAX_FACTS_PER_KIND = 50_000;
/** Files larger than this are inventoried but not read (a per-file unknown). */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Default heap limit of an analysis worker, in MiB. */
export const DEFAULT_MAX_HEAP_MB = 2048;
/** Default deadline of an analysis, in ms (ten minutes). */
export const DEFAULT_MAX_DURATION_MS = 600_000;
