/** How many page reads (script sources, source maps) one inspection keeps in flight at once. */
export const READS_IN_FLIGHT = 8;

/**
 * Maps `items` through `work` with at most `limit` calls pending at once; the results keep the order
 * of `items`. A rejection rejects the whole map (the calls already started still settle).
 */
export async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
