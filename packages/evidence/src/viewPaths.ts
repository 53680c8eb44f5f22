import type { JsonValue } from './json.js';

/** How deep {@link listPageable} looks for collections and text fields. */
const MAX_DEPTH = 4;
/** Strings at least this long, or holding a line break, are listed as pageable text. */
const TEXT_MIN_LENGTH = 256;

/** Where a dot path leads in a JSON value, or `undefined` when it leads nowhere. */
export function resolvePath(root: JsonValue, path: string): JsonValue | undefined {
  if (path === '$') return root;
  let node: JsonValue | undefined = root;
  for (const step of path.split('.')) {
    if (node === null || node === undefined || typeof node !== 'object') return undefined;
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(step)) return undefined;
      node = node[Number(step)];
    } else {
      node = Object.prototype.hasOwnProperty.call(node, step) ? node[step] : undefined;
    }
  }
  return node;
}

/** The JSON kind of a value, for diagnostics. */
export function kindOf(value: JsonValue): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** Pageable places in a result: arrays (with their lengths) and long or multi-line strings (with code-unit lengths). */
export interface Pageable {
  collections: Record<string, number>;
  text: Record<string, number>;
}

/**
 * Lists, by dot path in key order, the arrays and long or multi-line strings reachable through objects
 * within {@link MAX_DEPTH} levels of `root` (not inside arrays). A root array is listed as `$`.
 */
export function listPageable(root: JsonValue): Pageable {
  const found: Pageable = { collections: {}, text: {} };
  if (Array.isArray(root)) found.collections['$'] = root.length;
  const visit = (node: JsonValue, prefix: string, depth: number): void => {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || depth > MAX_DEPTH) return;
    for (const key of Object.keys(node).sort()) {
      const value = node[key]!;
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (Array.isArray(value)) found.collections[path] = value.length;
      else if (typeof value === 'string' && (value.length >= TEXT_MIN_LENGTH || value.includes('\n'))) {
        found.text[path] = value.length;
      } else visit(value, path, depth + 1);
    }
  };
  visit(root, '', 1);
  return found;
}
