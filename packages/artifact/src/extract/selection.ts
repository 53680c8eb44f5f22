import { DEFAULT_BUDGETS } from '../options.js';

/**
 * The selection as one container sees it: paths of its own entries (`direct`; undefined means
 * everything) and, per nested container entry it holds, the selections inside that container.
 */
export interface SplitSelection {
  direct: string[] | undefined;
  nested: Map<string, string[]>;
}

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
    nested.set(container, [...(nested.get(container) ?? []), inner]);
  }
  return { direct, nested };
}
