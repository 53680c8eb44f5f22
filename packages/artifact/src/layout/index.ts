/**
 * @rea/artifact/layout — every export of this module is public API.
 *
 * The binary layout parser (ELF, Mach-O and fat Mach-O, PE) without the container tools and their
 * schemas: what a native engine that only needs a binary's sections, symbols and imports imports, so
 * that loading it does not build the artifact tools (also exported by `@rea/artifact`).
 */
export {
  detectBinaryFormat,
  parseBinaryLayout,
  parseBinaryLayoutAsync,
  parseBinaryLayoutFile,
  parseBinaryLayoutFileAsync,
  parseWholeBinaryFileAsync,
} from './parse.js';
export type {
  BinaryArchitecture,
  BinaryFormat,
  BinaryLayout,
  LayoutExport,
  LayoutHeader,
  LayoutImport,
  LayoutLinkage,
  LayoutMitigations,
  LayoutSection,
  LayoutSegment,
  LayoutSlice,
  LayoutSymbol,
  ParseBinaryLayoutOptions,
} from './types.js';
