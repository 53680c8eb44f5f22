// The module pages of an application analysis: one collection, "all_modules", listing its scripts
// (file modules, with their asset's size and hash), the modules bundlers packed into them and the
// sources their maps name, each file followed by what it holds. Every row keeps its recorded
// properties and adds `module_kind` and `path`, so one module is found by path or exact node_id.
import type { EvidenceRecord } from './evidence.js';
import type { JsonObject, JsonValue } from './json.js';
import { APPLICATION_OPERATION } from './viewApplication.js';

/** The collection of an application analysis that lists every module kind together. */
export const ALL_MODULES = 'all_modules';

const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const objects = (value: JsonValue | undefined): JsonObject[] => (Array.isArray(value) ? value.filter(isObject) : []);

/** The rows of {@link ALL_MODULES} for an application analysis, or null for any other record. */
export function allModules(parent: EvidenceRecord<unknown>): JsonObject[] | null {
  const result = parent.normalized_result;
  if (parent.operation !== APPLICATION_OPERATION || !isObject(result) || ALL_MODULES in result) return null;
  if (!Array.isArray(result['modules'])) return null;
  const assets = new Map(objects(result['assets']).map((a) => [a['node_id'], a]));
  const held = new Map<JsonValue | undefined, JsonObject[]>();
  const hold = (owner: JsonValue | undefined, row: JsonObject) => {
    const list = held.get(owner);
    if (list === undefined) held.set(owner, [row]);
    else list.push(row);
  };
  for (const b of objects(result['bundled_modules'])) {
    // A numbered module (a minified build's) has no path; its node_id names it.
    const id = b['module_id'];
    const path = typeof id === 'string' && !/^\d+$/.test(id) ? id : null;
    hold(b['file'], { module_kind: 'bundled', path, ...b });
  }
  for (const s of objects(result['source_modules']))
    hold(s['map'], { module_kind: 'source', path: s['source'] ?? null, ...s });
  const rows: JsonObject[] = [];
  const files = new Set<JsonValue | undefined>();
  for (const m of objects(result['modules'])) {
    const asset = assets.get(m['node_id']);
    const facts =
      asset === undefined
        ? {}
        : { size: asset['size'] ?? null, sha256: asset['sha256'] ?? null, unpacked: asset['unpacked'] ?? false };
    rows.push({ module_kind: 'file', ...m, ...facts }, ...(held.get(m['node_id']) ?? []));
    files.add(m['node_id']);
  }
  for (const [owner, list] of held) if (!files.has(owner)) rows.push(...list);
  return rows;
}

/**
 * A path as a person may type it: without a `scheme://namespace/` prefix (source maps name sources
 * `webpack://app/./src/a.js`) and without leading `./` or `/`.
 */
export function loosePath(path: string): string {
  return path.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*\//i, '').replace(/^(?:\.\/|\/)+/, '');
}
