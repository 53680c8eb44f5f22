import { ReaError } from '@rea/evidence';
import { ContentKeys, isObject } from './walk.js';
import { ALL_JSON_TYPES, isUnconstrained, typeKeyword, typesOf } from './jsonTypes.js';
import type { JsonSchema } from './types.js';

interface Group {
  properties: Record<string, unknown>;
  required: string[];
  /** `false`, or the schema of undeclared properties (`true` when unconstrained). */
  additional: unknown;
  description: string | undefined;
}

function notObject(detail: string): never {
  throw new ReaError('invalid_request', `A tool input must be an object schema or a union of objects: ${detail}.`, {
    details: { reason: 'input-not-object', problem: detail },
  });
}

/** The object alternatives of a root union, nested unions flattened. */
function groupsOf(node: JsonSchema): Group[] {
  const alternatives = (node['anyOf'] ?? node['oneOf']) as unknown[];
  const groups: Group[] = [];
  for (const alternative of alternatives) {
    if (!isObject(alternative)) notObject('a union member is not a schema object');
    if (alternative['properties'] === undefined && (alternative['anyOf'] ?? alternative['oneOf']) !== undefined) {
      groups.push(...groupsOf(alternative));
      continue;
    }
    const types = typesOf(alternative);
    if (types === null || types.length !== 1 || types[0] !== 'object') notObject('a union member is not an object');
    const required = Array.isArray(alternative['required']) ? (alternative['required'] as string[]) : [];
    groups.push({
      properties: isObject(alternative['properties']) ? alternative['properties'] : {},
      required,
      additional: alternative['additionalProperties'] ?? true,
      description: typeof alternative['description'] === 'string' ? alternative['description'] : undefined,
    });
  }
  return groups;
}

function withoutDescription(node: unknown): unknown {
  if (!isObject(node) || !('description' in node)) return node;
  const { description: _description, ...rest } = node;
  return rest;
}

/** The merged schema of one property name across the groups that can carry it. */
function mergeProperty(variants: unknown[]): unknown {
  const keys = new ContentKeys();
  if (variants.some((v) => v === true || isUnconstrained(v))) {
    const described = variants.find((v) => isObject(v) && typeof v['description'] === 'string') as JsonSchema;
    return described
      ? { description: described['description'], type: [...ALL_JSON_TYPES] }
      : { type: [...ALL_JSON_TYPES] };
  }
  const distinct = new Map<string, unknown>();
  for (const variant of variants) distinct.set(keys.of(variant), variant);
  if (distinct.size === 1) return variants[0];
  const descriptions = [
    ...new Set(
      variants.flatMap((v) => (isObject(v) && typeof v['description'] === 'string' ? [v['description']] : [])),
    ),
  ];
  const bare = [...distinct.values()].map(withoutDescription);
  const described = descriptions.length > 0 ? { description: descriptions.join(' | ') } : {};
  // Literal-only variants (discriminators) merge into one enum of their values.
  const literals = bare.every(
    (v) =>
      isObject(v) &&
      ('const' in v || Array.isArray(v['enum'])) &&
      Object.keys(v).every((k) => k === 'type' || k === 'const' || k === 'enum'),
  );
  if (literals) {
    const values: unknown[] = [];
    for (const v of bare as JsonSchema[]) {
      for (const value of 'const' in v ? [v['const']] : Array.isArray(v['enum']) ? v['enum'] : []) {
        if (!values.some((known) => JSON.stringify(known) === JSON.stringify(value))) values.push(value);
      }
    }
    const types = typesOf({ enum: values });
    if (types !== null && values.length > 0) return { ...described, type: typeKeyword(types), enum: values };
  }
  const distinctBare = new Map<string, unknown>();
  for (const variant of bare) distinctBare.set(keys.of(variant), variant);
  const alternatives = [...distinctBare.values()];
  if (alternatives.length === 1) return { ...described, ...(alternatives[0] as JsonSchema) };
  const types = typesOf({ anyOf: alternatives });
  return { ...described, ...(types === null ? {} : { type: typeKeyword(types) }), anyOf: alternatives };
}

function quote(value: unknown): string {
  return JSON.stringify(value);
}

/** The root description: the union's own description, then each accepted input group. */
function describeGroups(own: string | undefined, groups: Group[]): string {
  const lines = groups.map((group, index) => {
    const fixed: string[] = [];
    const needs: string[] = [];
    for (const name of group.required) {
      const property = group.properties[name];
      if (isObject(property) && 'const' in property) fixed.push(`${name}=${quote(property['const'])}`);
      else needs.push(name);
    }
    const optional = Object.keys(group.properties).filter((name) => !group.required.includes(name));
    const parts = [
      ...fixed,
      needs.length > 0 ? `requires ${needs.join(', ')}` : 'no required fields',
      ...(optional.length > 0 ? [`optional ${optional.join(', ')}`] : []),
    ];
    return `(${index + 1}) ${parts.join('; ')}${group.description ? ` — ${group.description}` : ''}.`;
  });
  const intro = `Accepts exactly one of ${groups.length} input groups: ${lines.join(' ')}`;
  return own ? `${own} ${intro}` : intro;
}

/**
 * Presents a root union of object schemas as one object: merged properties (a name carried by
 * several groups accepts each group's schema for it), `required` = the names every group requires,
 * `dependentRequired` = for a group-specific name, the names every group accepting it requires, and
 * a root description listing the groups. It accepts every input the union accepts; exclusions it
 * cannot express (mixed groups) are left to canonical validation. A root that is already an object
 * is returned as is; any other root is refused with `invalid_request` (`reason: "input-not-object"`).
 */
export function mergeRootUnion(root: JsonSchema): JsonSchema {
  const union = root['anyOf'] ?? root['oneOf'];
  if (root['allOf'] !== undefined) notObject('a root intersection (allOf) cannot be advertised');
  if (!Array.isArray(union)) {
    const types = typesOf(root);
    if (types === null || types.length !== 1 || types[0] !== 'object') notObject('the root is not an object');
    return root;
  }
  const groups = groupsOf(root);
  const names: string[] = [];
  for (const group of groups)
    for (const name of Object.keys(group.properties)) if (!names.includes(name)) names.push(name);
  const properties: Record<string, unknown> = {};
  for (const name of names) {
    const variants = groups.flatMap((group) => {
      if (name in group.properties) return [group.properties[name]];
      return group.additional === false ? [] : [group.additional];
    });
    properties[name] = mergeProperty(variants);
  }
  const accepts = (group: Group, name: string): boolean => name in group.properties || group.additional !== false;
  const required = names.filter((name) => groups.every((group) => group.required.includes(name)));
  const dependentRequired: Record<string, string[]> = {};
  for (const name of names) {
    if (required.includes(name)) continue;
    const carriers = groups.filter((group) => accepts(group, name));
    const shared = names.filter(
      (other) => other !== name && !required.includes(other) && carriers.every((g) => g.required.includes(other)),
    );
    if (shared.length > 0) dependentRequired[name] = shared;
  }
  const keys = new ContentKeys();
  const additional = groups.map((group) => group.additional);
  const sameAdditional = additional.every((a) => keys.of(a) === keys.of(additional[0]));
  const own = typeof root['description'] === 'string' ? root['description'] : undefined;
  const merged: JsonSchema = {
    type: 'object',
    description: describeGroups(own, groups),
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...(Object.keys(dependentRequired).length > 0 ? { dependentRequired } : {}),
  };
  if (sameAdditional && additional[0] !== true) merged['additionalProperties'] = additional[0];
  return merged;
}
