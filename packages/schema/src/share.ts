import { ContentKeys, forEachChild, isObject, mapChildren, serializedSize } from './walk.js';
import type { ChildSlot } from './walk.js';
import type { JsonSchema } from './types.js';

/** A repeated subschema is shared only when it is at least this large (serialized bytes). */
const MIN_SHARED_BYTES = 96;

function hintFor(slot: ChildSlot, parentHint: string): string {
  if (slot.keyword === 'properties' || slot.keyword === 'patternProperties') return slot.key ?? parentHint;
  if (slot.keyword === 'items' || slot.keyword === 'prefixItems') return `${parentHint}_item`;
  if (slot.keyword === 'additionalProperties') return `${parentHint}_value`;
  if (slot.keyword === 'anyOf' || slot.keyword === 'oneOf') return `${parentHint}_option`;
  return parentHint;
}

function sanitize(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_]/g, '_').replace(/^_+|_+$/g, '');
  return cleaned.length > 0 ? cleaned.slice(0, 48) : 'shared';
}

/**
 * Which repeated subschemas are shared: `size` shares those of at least 96 serialized bytes;
 * `savings` shares those whose inline copies cost more bytes than the references and the
 * definition's name (measured on the subschema's inline size, parents decided before children).
 */
export type SharePolicy = 'size' | 'savings';

/** True when writing `count` references and one definition called `name` is smaller than `count` copies. */
function sharingSaves(size: number, count: number, defName: string): boolean {
  const name = Buffer.byteLength(defName, 'utf8');
  const reference = '{"$ref":"#/$defs/"}'.length + name;
  const entry = name + 4; // "name": and the separating comma
  return (count - 1) * size > count * reference + entry;
}

/**
 * Writes a recursion-free schema DAG as a plain tree in which every repeated subschema (equal
 * content reached at least twice, selected by `policy`) appears once under `$defs` and is referred
 * to as `{"$ref": "#/$defs/<name>"}` with no sibling keywords. A definition is named after the
 * shortest of the properties it is reached under (a name already given goes to the next candidate).
 * Validation is unchanged; when nothing repeats there is no `$defs`.
 */
export function shareRepeated(root: JsonSchema, policy: SharePolicy = 'size'): JsonSchema {
  const keys = new ContentKeys();
  const sizes = new WeakMap<object, number>();
  const byHash = new Map<string, JsonSchema>();
  const reached = new Map<string, Set<string>>();
  const edges = new Map<string, string[]>();
  const order: string[] = [];
  // Depth-first post-order over distinct contents; its reverse visits parents before children.
  const visit = (node: JsonSchema, hint: string): string => {
    const hash = keys.of(node);
    const names = reached.get(hash) ?? new Set<string>();
    names.add(hint);
    reached.set(hash, names);
    if (byHash.has(hash)) return hash;
    byHash.set(hash, node);
    const children: string[] = [];
    forEachChild(node, (child, slot) => {
      if (isObject(child)) children.push(visit(child, hintFor(slot, hint)));
    });
    edges.set(hash, children);
    order.push(hash);
    return hash;
  };
  const rootHash = visit(root, 'root');
  const effective = new Map<string, number>([[rootHash, 1]]);
  const shared = new Set<string>();
  for (const hash of [...order].reverse()) {
    const count = effective.get(hash) ?? 0;
    const node = byHash.get(hash)!;
    const size = serializedSize(node, sizes);
    const extract =
      hash !== rootHash &&
      count >= 2 &&
      (policy === 'size' ? size >= MIN_SHARED_BYTES : sharingSaves(size, count, candidates(reached.get(hash)!)[0]!));
    if (extract) shared.add(hash);
    const emitted = extract ? 1 : count;
    for (const child of edges.get(hash) ?? []) effective.set(child, (effective.get(child) ?? 0) + emitted);
  }
  if (shared.size === 0) return materializeTree(root);
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const hash of [...order].reverse()) {
    if (!shared.has(hash)) continue;
    const options = candidates(reached.get(hash)!);
    let name = options.find((option) => !taken.has(option)) ?? options[0]!;
    for (let n = 2; taken.has(name); n += 1) name = `${options[0]!}_${n}`;
    taken.add(name);
    names.set(hash, name);
  }
  const write = (node: unknown, top: boolean): unknown => {
    if (!isObject(node)) return node;
    const hash = keys.of(node);
    if (!top && shared.has(hash)) return { $ref: `#/$defs/${names.get(hash)!}` };
    return mapChildren(node, (child) => write(child, false));
  };
  const $defs: Record<string, unknown> = {};
  for (const [hash, name] of [...names].sort((a, b) => (a[1] < b[1] ? -1 : 1))) {
    $defs[name] = write(byHash.get(hash), true);
  }
  return materializeTree({ ...(write(root, true) as JsonSchema), $defs });
}

/**
 * The candidate names of a shared subschema: every name it is reached under (the property, or the
 * parent's name with `_item`, `_value` or `_option`), shortest first, then alphabetical.
 */
function candidates(reached: Set<string>): string[] {
  return [...new Set([...reached].map(sanitize))].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
}

function materializeTree(root: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(root)) as JsonSchema;
}
