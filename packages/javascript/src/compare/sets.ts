/** Values only one side holds, each list sorted and without duplicates. */
export interface SetDiff {
  added: string[];
  removed: string[];
}

/** The values of `after` not in `before` (added) and of `before` not in `after` (removed). */
export function setDiff(before: Iterable<string>, after: Iterable<string>): SetDiff {
  const old = new Set(before);
  const now = new Set(after);
  return {
    added: [...now].filter((v) => !old.has(v)).sort(),
    removed: [...old].filter((v) => !now.has(v)).sort(),
  };
}
