// Assembling the bundles whose modules are not all functions: Parcel's (registered modules plus the
// hoisted rest) and Rollup's and Vite's (source-map ranges, or the CommonJS wrappers without a map).
import type { EsNode } from '../engine/parser.js';
import type { DecodedSourceMap } from '../engine/sourceMap.js';
import { holderIndex } from './holders.js';
import type { BundlerName, RecoveredBundle, RecoveredModule } from './bundles.js';
import { commonjsWrappers } from './cjsWrappers.js';
import { assignMappedExports, hoistingBundler, mappedModules, vitePreloads } from './mapped.js';
import { parcelHoisted, parcelRegistered } from './parcel.js';
import { assignParcelExports } from './parcelExports.js';

/** The opening of a CommonJS wrapper (cjsWrappers.ts), so files without one are not walked for them. */
const WRAPPER_HINT =
  /function\s*[\w$]+\s*\(\s*\)\s*\{\s*(?:if\s*\(\s*[\w$]+\s*\)\s*return\b|return\s*[\w$]+\s*\|\|\s*\(\s*[\w$]+\s*=\s*1\b)/;
/**
 * Modules of `map` whose span holds no module of `runtime` (the hoisted code around registered modules
 * or wrappers).
 */
export function mappedBeside(
  runtime: RecoveredModule[],
  map: DecodedSourceMap | null,
  text: string,
  bundler: BundlerName,
  every?: () => void,
): RecoveredModule[] {
  if (map === null) return [];
  const mapped = mappedModules(map, text, bundler, every);
  return mapped.filter((m) => !runtime.some((r) => r.start < m.end && m.start < r.end));
}

/** A Parcel bundle: the modules registered with its runtime and the hoisted ones (from the map, or hash prefixes). */
export function parcelBundle(
  program: EsNode,
  text: string,
  map: DecodedSourceMap | null,
  every?: () => void,
): RecoveredBundle {
  const { modules, edges } = parcelRegistered(program, every);
  // Without a map, the hash prefixes of hoisted names bound the hoisted modules of unminified output.
  const hoisted =
    map === null
      ? parcelHoisted(program).filter((h) => !modules.some((r) => r.start < h.end && h.start < r.end))
      : mappedBeside(modules, map, text, 'parcel', every);
  const holder = holderIndex(hoisted);
  if (map !== null) assignMappedExports(program, map, holder);
  assignParcelExports(program, holder);
  return { bundler: 'parcel', modules: [...modules, ...hoisted], edges };
}

/**
 * A scope-hoisted bundle (Rollup, Vite, or one no marker names): its modules from the source map —
 * with a marker, one mapped source is enough; without, two are needed (one is a compiled file, not a
 * bundle) —, else the CommonJS modules Rollup wrapped (cjsWrappers.ts), and Vite's preload lists. Not
 * a recognised bundle when neither marker, map nor wrapper says so.
 */
export function hoistedBundle(
  program: EsNode,
  text: string,
  map: DecodedSourceMap | null,
  every?: () => void,
): RecoveredBundle {
  const named = hoistingBundler(text);
  const mapped = map === null ? [] : mappedModules(map, text, named ?? 'source-map', every);
  // Without a map, the CommonJS modules Rollup wrapped are the only ones whose bounds the code shows.
  const wrapped =
    mapped.length === 0 && (named !== null || WRAPPER_HINT.test(text))
      ? commonjsWrappers(program, every)
      : { modules: [], edges: [] };
  const bundler = named ?? (wrapped.modules.length > 0 ? 'rollup' : mapped.length >= 2 ? 'source-map' : null);
  if (map !== null && (bundler !== null || mapped.length === 1)) assignMappedExports(program, map, holderIndex(mapped));
  if (bundler === null)
    return { bundler: null, modules: [], edges: [], ...(mapped.length === 1 ? { single: mapped[0]! } : {}) };
  for (const m of wrapped.modules) m.bundler = bundler;
  return {
    bundler,
    modules: [...mapped, ...wrapped.modules],
    edges: wrapped.edges,
    preloads: bundler === 'vite' ? vitePreloads(program, every) : [],
  };
}
