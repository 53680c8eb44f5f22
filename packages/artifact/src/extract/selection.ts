import { DEFAULT_BUDGETS } from '../options.js';

/**
 * The selection as one container sees it: paths of its own entries (`direct`; undefined means
 * everything) and, per nested container entry it holds, the selections inside that container.
 */
export interface SplitSelection {
  direct: string[] | undefined;
  nested: Map<string, string[]>;
}

/** What to select instead of a path that names no entry (or no container). */
export const SELECT_AS_LISTED =
  'Select logical paths as inspect_artifact lists them (entries[].path, "outer.zip!/inner.txt" inside a nested container); a folder selects everything below it.';

/** Deepest nested container a selection may reach (`outer!/inner!/…`). */
export const MAX_EXTRACT_DEPTH = DEFAULT_BUDGETS.max_depth;

/** Largest nested container held in memory to extract from. */
export const MAX_NESTED_BYTES = DEFAULT_BUDGETS.max_nested_bytes;

/**
 * Splits logical paths relative to one container at their first `!/`: `lib/a.zip!/x/y` selects `x/y`
 * inside the entry `lib/a.zip`. Paths without `!/` select entries of this container.
 */
export function splitSelection(select: readonly string[] | undefined): SplitSelection {
  if (select === undefined) return { direct: undefined, nested: new Map() };
  const direct: string[] = [];
  const nested = new Map<string, string[]>();
  for (const path of select) {
    const at = path.indexOf('!/');
    if (at < 0) {
      direct.push(path);
      continue;
    }
    const container = path.slice(0, at);
    const inner = path.slice(at + 2);
    const list = nested.get(container);
    if (list === undefined) nested.set(container, [inner]);
    else list.push(inner);
  }
  return { direct, nested };
}

/**
 * For each of `names`, the first of `items` that `accept` takes and `nameOf` names so, in one pass over
 * `items` (which stops once every name is found): the nested containers a selection reaches are looked up
 * together, not with a scan of the whole directory each.
 */
export function firstNamed<T>(
  items: readonly T[],
  names: ReadonlySet<string> | ReadonlyMap<string, unknown>,
  accept: (item: T) => boolean,
  nameOf: (item: T) => string,
): Map<string, T> {
  const found = new Map<string, T>();
  if (names.size === 0) return found;
  for (const item of items) {
    if (!accept(item)) continue;
    const name = nameOf(item);
    if (names.has(name) && !found.has(name)) {
      found.set(name, item);
      if (found.size === names.size) break;
    }
  }
  return found;
}
