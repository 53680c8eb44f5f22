// Source maps: the `sourceMappingURL` of a script, inline (data: URL) or external (a file of the input),
// read through @jridgewell/trace-mapping for its sources (sourceRoot applied) and sourcesContent.
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { decodeSourceMap } from '../engine/sourceMap.js';
import type { DecodedSourceMap } from '../engine/sourceMap.js';

/** Sources listed per map; the rest are an explicit unknown. */
export const MAX_SOURCES_PER_MAP = 20_000;

/** A source a map names, with the hash of its embedded content when the map carries it. */
export interface MappedSource {
  source: string;
  contentSha256: string | null;
}

/** How a script's source map was resolved. */
export interface SourceMapResolution {
  status: 'none' | 'inline' | 'external' | 'unresolved';
  reference: string | null;
  mapPath: string | null;
  reason: string | null;
  sources: MappedSource[];
  sourceCount: number;
  /** The decoded map (its generated ranges per source), when it was read. */
  decoded: DecodedSourceMap | null;
}

const REFERENCE = /[#@]\s*sourceMappingURL=([^\s'"*]+)/g;

/** The reference of the last `sourceMappingURL` comment of `text`, or null. */
export function sourceMapReference(text: string): string | null {
  const at = text.lastIndexOf('sourceMappingURL=');
  if (at < 0) return null;
  const matches = [...text.slice(Math.max(0, at - 4)).matchAll(REFERENCE)];
  return matches.at(-1)?.[1] ?? null;
}

/** A logical path relative to `from`'s folder, kept inside `from`'s container; null when it escapes. */
export function resolveWithin(from: string, reference: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(reference) || reference.startsWith('/')) return null;
  const cut = from.lastIndexOf('!/');
  const container = cut < 0 ? '' : from.slice(0, cut + 2);
  const inner = cut < 0 ? from : from.slice(cut + 2);
  let decoded: string;
  try {
    decoded = decodeURIComponent(reference);
  } catch {
    return null;
  }
  const joined = posix.normalize(posix.join(posix.dirname(inner), decoded));
  if (joined === '..' || joined.startsWith('../') || posix.isAbsolute(joined)) return null;
  return container + joined;
}

function decodeDataUrl(reference: string): string | null {
  const comma = reference.indexOf(',');
  if (comma < 0) return null;
  const meta = reference.slice(5, comma);
  const data = reference.slice(comma + 1);
  try {
    return meta.endsWith(';base64') ? Buffer.from(data, 'base64').toString('utf8') : decodeURIComponent(data);
  } catch {
    return null;
  }
}

function read(text: string): { sources: MappedSource[]; count: number; map: DecodedSourceMap } | string {
  let map: DecodedSourceMap;
  try {
    map = decodeSourceMap(text);
  } catch (error) {
    return `the map is not valid source-map JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  const names = map.sources;
  const contents = map.contents;
  const sources = names.slice(0, MAX_SOURCES_PER_MAP).map((source, index) => {
    const content = contents[index];
    return {
      source: source ?? '',
      contentSha256: typeof content === 'string' ? createHash('sha256').update(content).digest('hex') : null,
    };
  });
  return { sources, count: names.length, map };
}

/**
 * Resolves the source map of the script at logical `path` whose text is `text`: an inline data: URL,
 * or an external map found in `files` (by logical path, within the script's container). A map that is
 * remote, outside the input, missing or malformed is `unresolved` with the reason.
 */
export function resolveSourceMap(path: string, text: string, files: ReadonlyMap<string, Buffer>): SourceMapResolution {
  const reference = sourceMapReference(text);
  const none = { mapPath: null, reason: null, sources: [], sourceCount: 0, decoded: null };
  if (reference === null) return { status: 'none', reference: null, ...none };
  const shown = reference.startsWith('data:') ? `${reference.slice(0, reference.indexOf(',') + 1)}…` : reference;
  const unresolved = (reason: string, mapPath: string | null = null): SourceMapResolution => ({
    status: 'unresolved',
    reference: shown,
    mapPath,
    reason,
    sources: [],
    sourceCount: 0,
    decoded: null,
  });
  let body: string | null;
  let mapPath: string | null = null;
  if (reference.startsWith('data:')) {
    body = decodeDataUrl(reference);
    if (body === null) return unresolved('the inline data: URL cannot be decoded');
  } else {
    mapPath = resolveWithin(path, reference);
    if (mapPath === null) return unresolved('the map is remote or outside the input');
    const bytes = files.get(mapPath);
    if (bytes === undefined) return unresolved('the map is not in the input', mapPath);
    body = bytes.toString('utf8');
  }
  const parsed = read(body);
  if (typeof parsed === 'string') return unresolved(parsed, mapPath);
  return {
    status: mapPath === null ? 'inline' : 'external',
    reference: shown,
    mapPath,
    reason: null,
    sources: parsed.sources,
    sourceCount: parsed.count,
    decoded: parsed.map,
  };
}
