import type { EsNode } from '../engine/parser.js';

function isNode(value: unknown): value is EsNode {
  return value !== null && typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string';
}

/**
 * Visits every node of `root` in source order with an explicit stack (no recursion, so an AST as deep
 * as the parser accepted never exhausts this process's stack). `visit` returning false skips the
 * node's children. `every` is called every 50,000 nodes so a caller can check cancellation.
 */
export function walk(root: EsNode, visit: (node: EsNode) => boolean | void, every?: () => void): void {
  const stack: EsNode[] = [root];
  // One scratch list for every node's children (a list per node is garbage the collector pays for).
  const children: EsNode[] = [];
  let count = 0;
  while (stack.length > 0) {
    const node = stack.pop()!;
    count += 1;
    if (every && count % 50_000 === 0) every();
    if (visit(node) === false) continue;
    children.length = 0;
    // Parser nodes are plain objects: for…in lists their own keys, in order, without a key array.
    for (const key in node) {
      const value = node[key];
      if (value === null || typeof value !== 'object' || key === 'loc' || key === 'range') continue;
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) children.push(item);
      } else if (isNode(value)) {
        children.push(value);
      }
    }
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]!);
  }
}

/** The value of a string literal or a template literal without expressions, else null. */
export function stringValue(node: unknown): string | null {
  if (!isNode(node)) return null;
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value;
  if (node.type === 'TemplateLiteral') {
    const expressions = node.expressions as unknown[];
    const quasis = node.quasis as { value: { cooked: string | null } }[];
    if (expressions.length === 0 && quasis.length === 1) return quasis[0]!.value.cooked;
  }
  return null;
}

/** Longest member chain {@link memberPath} follows; longer chains are not named. */
const MAX_MEMBER_PARTS = 16;

/** `a.b.c` for a member chain of identifiers (computed string keys included), else null. Iterative. */
export function memberPath(node: unknown): string | null {
  const parts: string[] = [];
  let current: unknown = node;
  while (isNode(current) && parts.length <= MAX_MEMBER_PARTS) {
    if (current.type === 'Identifier') return [current.name as string, ...parts.reverse()].join('.');
    if (current.type === 'ThisExpression') return ['this', ...parts.reverse()].join('.');
    if (current.type !== 'MemberExpression') return null;
    const property = current.computed ? stringValue(current.property) : ((current.property as EsNode).name as string);
    if (typeof property !== 'string') return null;
    parts.push(property);
    current = current.object;
  }
  return null;
}
