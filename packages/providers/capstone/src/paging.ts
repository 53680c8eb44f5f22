import type { Page, PageRequest } from '@rea/native';
import type { Pacer } from './analysis/pace.js';

/** Rows handled between two looks at the pacer when a page is filtered or built. */
export const PAGE_CHECK = 256;

/**
 * The page of `rows` that `page` asks for, as `paginate` of @rea/native computes it (rows whose key
 * contains the query, case-insensitively, when there is one), giving the event loop turns through
 * `pacer` while a long list is filtered and `phase` is named when a cancel ends it.
 */
export async function pacedPage<T>(
  rows: readonly T[],
  page: PageRequest,
  key: (row: T) => string,
  pacer: Pacer,
  phase: string,
): Promise<Page<T>> {
  let matching: readonly T[] = rows;
  const needle = page.query?.toLowerCase();
  if (needle) {
    const found: T[] = [];
    for (let i = 0; i < rows.length; i += 1) {
      if (i % PAGE_CHECK === 0) await pacer.maybe(phase);
      if (key(rows[i]!).toLowerCase().includes(needle)) found.push(rows[i]!);
    }
    matching = found;
  }
  const items = matching.slice(page.offset, page.offset + page.limit);
  const end = page.offset + items.length;
  return { items, total: matching.length, next_offset: end < matching.length ? end : null };
}

/** `rows` mapped through `map`, with turns through `pacer` while a long list is mapped. */
export async function pacedMap<T, U>(
  rows: readonly T[],
  map: (row: T) => U,
  pacer: Pacer,
  phase: string,
): Promise<U[]> {
  const out: U[] = [];
  for (let i = 0; i < rows.length; i += 1) {
    if (i % PAGE_CHECK === 0) await pacer.maybe(phase);
    out.push(map(rows[i]!));
  }
  return out;
}

/**
 * The page of the rows numbered 0 to `count` - 1 that `page` asks for without a query, as
 * {@link pacedPage} computes it over those numbers, without listing them; null when the offset or
 * limit is not a non-negative integer (the caller lists the rows and asks {@link pacedPage}).
 */
export function pageOfCount(count: number, page: PageRequest): Page<number> | null {
  const { offset, limit } = page;
  if (page.query || !Number.isSafeInteger(offset) || offset < 0 || !(limit >= 0) || !Number.isInteger(limit))
    return null;
  const first = Math.min(offset, count);
  const end = Math.min(offset + limit, count);
  const items: number[] = [];
  for (let i = first; i < end; i += 1) items.push(i);
  const next = offset + items.length;
  return { items, total: count, next_offset: next < count ? next : null };
}
