import { ReaError, canonicalSha256 } from '@rea/evidence';
import type { JsonValue } from '@rea/evidence';

/** Default page offset and limit of analysis views. */
export const VIEW_DEFAULTS = { offset: 0, limit: 64 } as const;

/** One facet of a record's `normalized_result`, as listed by a summary view. */
export interface FacetSummary {
  facet: string;
  kind: 'rows' | 'text' | 'object' | 'scalar';
  /** Rows of an array, UTF-16 code units of a text, members of an object; null for a scalar. */
  length: number | null;
}

/** A page over rows or text. */
export interface ViewPage {
  kind: 'rows' | 'text';
  offset: number;
  limit: number;
  total: number;
  items: JsonValue[] | null;
  text: string | null;
  next_offset: number | null;
}

function kindOf(value: JsonValue): FacetSummary {
  if (Array.isArray(value)) return { facet: '', kind: 'rows', length: value.length };
  if (typeof value === 'string') return { facet: '', kind: 'text', length: value.length };
  if (value !== null && typeof value === 'object')
    return { facet: '', kind: 'object', length: Object.keys(value).length };
  return { facet: '', kind: 'scalar', length: null };
}

/** Every first- and second-level facet of `result`, sorted by path. */
export function summarize(result: JsonValue): FacetSummary[] {
  const out: FacetSummary[] = [];
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return out;
  for (const key of Object.keys(result).sort()) {
    const value = result[key]!;
    out.push({ ...kindOf(value), facet: key });
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const inner of Object.keys(value).sort()) out.push({ ...kindOf(value[inner]!), facet: `${key}.${inner}` });
    }
  }
  return out;
}

/** The value at a dotted facet path; `not_found` naming the facet when absent. */
export function facetOf(result: JsonValue, facet: string): JsonValue {
  let node: JsonValue = result;
  for (const part of facet.split('.')) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !(part in node)) {
      throw new ReaError('not_found', `The record has no facet ${facet}.`, { details: { reason: 'missing', facet } });
    }
    node = node[part]!;
  }
  return node;
}

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/**
 * A stable page of rows, or of text counted in UTF-16 code units that never splits a surrogate pair
 * (a start inside a pair moves back to the pair; an end inside a pair moves before it, or past it when
 * the page would otherwise be empty). `next_offset` is null at the end.
 */
export function pageOf(value: JsonValue, facet: string, offset: number, limit: number): ViewPage {
  if (typeof value === 'string') {
    let start = Math.min(offset, value.length);
    if (start > 0 && start < value.length && isLow(value.charCodeAt(start)) && isHigh(value.charCodeAt(start - 1))) {
      start -= 1;
    }
    let end = Math.min(start + limit, value.length);
    if (end < value.length && end > start && isHigh(value.charCodeAt(end - 1)) && isLow(value.charCodeAt(end))) {
      end = end - 1 > start ? end - 1 : end + 1;
    }
    return {
      kind: 'text',
      offset: start,
      limit,
      total: value.length,
      items: null,
      text: value.slice(start, end),
      next_offset: end < value.length ? end : null,
    };
  }
  if (Array.isArray(value)) {
    const start = Math.min(offset, value.length);
    const end = Math.min(start + limit, value.length);
    return {
      kind: 'rows',
      offset: start,
      limit,
      total: value.length,
      items: value.slice(start, end),
      text: null,
      next_offset: end < value.length ? end : null,
    };
  }
  throw new ReaError('invalid_request', `Facet ${facet} is neither rows nor text and cannot be paged.`, {
    details: { reason: 'not-pageable', facet },
  });
}

/** The digest of the selected facts (SHA-256 of their canonical JSON). */
export function selectionDigest(selection: JsonValue): string {
  return canonicalSha256(selection);
}
