import { forEachChild, isObject } from './walk.js';
import type { JsonSchema, PortabilityReport, PortabilityRuleResult } from './types.js';

/** The tool name pattern mainstream model APIs accept. */
export const PORTABLE_TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

/** The deepest nesting of objects and arrays a portable input schema may describe (root = 1). */
export const MAX_PORTABLE_DEPTH = 10;

/** The portability rules, in report order. */
export const PORTABILITY_RULES = [
  'tool-name',
  'root-type-object',
  'no-root-combinator',
  'property-types',
  'required-declared',
  'local-refs',
  'no-recursion',
  'nesting-depth',
] as const;

const LOCAL_REF = /^#\/\$defs\/([^/]+)$/;
const MAX_FINDINGS = 5;

class Findings {
  readonly byRule = new Map<string, string[]>();
  add(rule: string, detail: string): void {
    const list = this.byRule.get(rule) ?? [];
    if (list.length < MAX_FINDINGS) list.push(detail);
    this.byRule.set(rule, list);
  }
}

function hasType(node: unknown, defs: JsonSchema): boolean {
  if (!isObject(node)) return false;
  if (node['type'] !== undefined) return true;
  const ref = node['$ref'];
  if (typeof ref === 'string') {
    const match = LOCAL_REF.exec(ref);
    return match !== null && isObject(defs[match[1]!]) && (defs[match[1]!] as JsonSchema)['type'] !== undefined;
  }
  return false;
}

/**
 * Checks an advertised input schema against the rules mainstream model APIs enforce and reports each:
 * `tool-name` (the name matches `^[a-zA-Z][a-zA-Z0-9_-]{0,63}$`), `root-type-object`,
 * `no-root-combinator` (no root `anyOf`/`oneOf`/`allOf`), `property-types` (every property declares
 * a `type`, through its `$ref`), `required-declared` (every `required` name is in `properties`),
 * `local-refs` (every `$ref` is `#/$defs/<name>`, resolves, and has no sibling keywords),
 * `no-recursion`, and `nesting-depth` (at most 10 levels of objects and arrays). Never throws: any
 * JSON value can be checked.
 */
export function checkPortability(name: string, inputSchema: Record<string, unknown>): PortabilityReport {
  const findings = new Findings();
  if (!PORTABLE_TOOL_NAME.test(name)) findings.add('tool-name', `"${name}" does not match ${PORTABLE_TOOL_NAME}`);
  const root: JsonSchema = isObject(inputSchema) ? inputSchema : {};
  if (root['type'] !== 'object') findings.add('root-type-object', `root type is ${JSON.stringify(root['type'])}`);
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
    if (keyword in root) findings.add('no-root-combinator', `root has ${keyword}`);
  }
  const defs: JsonSchema = isObject(root['$defs']) ? root['$defs'] : {};
  const active = new Set<string>();
  const defDepths = new Map<string, number>();
  // Returns how many object/array levels the subtree at `node` describes (itself included).
  const walk = (node: unknown, path: string): number => {
    if (!isObject(node)) return 0;
    const level = node['type'] === 'object' || node['type'] === 'array' || 'properties' in node || 'items' in node;
    let below = 0;
    if (isObject(node['properties'])) {
      for (const [key, property] of Object.entries(node['properties'])) {
        if (!hasType(property, defs)) findings.add('property-types', `${path}/properties/${key} has no type`);
      }
    }
    if (Array.isArray(node['required'])) {
      const declared = isObject(node['properties']) ? node['properties'] : {};
      for (const required of node['required']) {
        if (typeof required !== 'string' || !(required in declared)) {
          findings.add('required-declared', `${path}: required ${JSON.stringify(required)} is not a property`);
        }
      }
    }
    const ref = node['$ref'];
    if (ref !== undefined) {
      const match = typeof ref === 'string' ? LOCAL_REF.exec(ref) : null;
      const siblings = Object.keys(node).filter((key) => key !== '$ref');
      if (match === null) findings.add('local-refs', `${path}: ${JSON.stringify(ref)} is not #/$defs/<name>`);
      else if (!isObject(defs[match[1]!])) findings.add('local-refs', `${path}: ${ref} does not resolve`);
      if (siblings.length > 0) findings.add('local-refs', `${path}: $ref has sibling keywords ${siblings.join(', ')}`);
      if (match !== null && isObject(defs[match[1]!])) {
        const target = match[1]!;
        if (active.has(target)) {
          findings.add('no-recursion', `${path}: ${ref} is reached again inside itself`);
          below = Math.max(below, MAX_PORTABLE_DEPTH + 1);
        } else {
          let depth = defDepths.get(target);
          if (depth === undefined) {
            active.add(target);
            depth = walk(defs[target], `#/$defs/${target}`);
            active.delete(target);
            defDepths.set(target, depth);
          }
          below = Math.max(below, depth);
        }
      }
    }
    forEachChild(node, (child, slot) => {
      if (slot.keyword === '$defs' || slot.keyword === 'definitions') return;
      below = Math.max(below, walk(child, `${path}/${slot.keyword}${slot.key === undefined ? '' : `/${slot.key}`}`));
    });
    return (level ? 1 : 0) + below;
  };
  let depth: number;
  try {
    depth = walk(root, '#');
  } catch (error) {
    // A schema nested deeper than the call stack: far past any model API's limit.
    if (!(error instanceof RangeError)) throw error;
    depth = Number.POSITIVE_INFINITY;
  }
  if (depth > MAX_PORTABLE_DEPTH) findings.add('nesting-depth', `nesting depth ${depth} exceeds ${MAX_PORTABLE_DEPTH}`);
  const rules: PortabilityRuleResult[] = PORTABILITY_RULES.map((rule) => {
    const details = findings.byRule.get(rule);
    return details === undefined ? { rule, passed: true } : { rule, passed: false, detail: details.join('; ') };
  });
  return { passed: rules.every((r) => r.passed), rules };
}
