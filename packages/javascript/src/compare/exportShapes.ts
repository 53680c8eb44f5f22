// The API diff of two export lists: exports matched by name and module system, changed when their
// value kind or function arity differs.
import type { ExportShape } from '../schemas.js';

/** An export present on both sides whose shape differs. */
export interface ExportChange {
  name: string;
  system: ExportShape['system'];
  before: ExportShape;
  after: ExportShape;
}

/** What changed between two export lists. */
export interface ExportDiff {
  added: ExportShape[];
  removed: ExportShape[];
  changed: ExportChange[];
  unchanged: number;
}

const key = (shape: ExportShape) => `${shape.system}\u0000${shape.name}`;

/** Compares `before` and `after` export by export; the lists come back sorted by name. */
export function diffExports(before: readonly ExportShape[], after: readonly ExportShape[]): ExportDiff {
  const old = new Map(before.map((e) => [key(e), e]));
  const now = new Map(after.map((e) => [key(e), e]));
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const diff: ExportDiff = { added: [], removed: [], changed: [], unchanged: 0 };
  for (const [k, shape] of now) {
    const previous = old.get(k);
    if (previous === undefined) diff.added.push(shape);
    else if (previous.value_kind !== shape.value_kind || previous.arity !== shape.arity) {
      diff.changed.push({ name: shape.name, system: shape.system, before: previous, after: shape });
    } else diff.unchanged += 1;
  }
  for (const [k, shape] of old) if (!now.has(k)) diff.removed.push(shape);
  diff.added.sort(byName);
  diff.removed.sort(byName);
  diff.changed.sort(byName);
  return diff;
}
