import type { JsonValue } from './json.js';
import { ReaError } from './reaError.js';

/** One page of a collection. */
export interface Page {
  total: number;
  next_offset: number | null;
  items?: JsonValue[];
  text?: string;
}

function outOfRange(offset: number, total: number): ReaError {
  return new ReaError('invalid_request', `Offset ${offset} is past the end of the collection (${total}).`, {
    details: { reason: 'offset-out-of-range', offset, total },
    remediation: `Page from an offset of at most ${total} (the collection's length), or from 0.`,
  });
}

/** `limit` items from `offset`, in order. An offset equal to the length gives an empty last page. */
export function pageItems(items: JsonValue[], offset: number, limit: number): Page {
  const total = items.length;
  if (offset > total) throw outOfRange(offset, total);
  const end = Math.min(total, offset + limit);
  return { total, items: items.slice(offset, end), next_offset: end < total ? end : null };
}

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * `limit` UTF-16 code units of `text` from `offset`, never splitting a surrogate pair: a page that
 * would end between the two halves of a pair ends before it instead, or — when the pair is the
 * page's only content (limit 1) — includes the whole pair, so paging always advances. An offset
 * inside a pair is `invalid_request` (reason "offset-splits-surrogate-pair").
 */
export function pageText(text: string, offset: number, limit: number): Page {
  const total = text.length;
  if (offset > total) throw outOfRange(offset, total);
  if (offset > 0 && offset < total && isLow(text.charCodeAt(offset)) && isHigh(text.charCodeAt(offset - 1))) {
    throw new ReaError('invalid_request', `Offset ${offset} falls inside a surrogate pair.`, {
      details: { reason: 'offset-splits-surrogate-pair', offset, suggested_offset: offset - 1 },
      remediation: `Page from offset ${offset - 1} (details.suggested_offset), where the pair begins.`,
    });
  }
  let end = Math.min(total, offset + limit);
  if (end < total && isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end))) {
    end = end - 1 > offset ? end - 1 : end + 1;
  }
  return { total, text: text.slice(offset, end), next_offset: end < total ? end : null };
}
