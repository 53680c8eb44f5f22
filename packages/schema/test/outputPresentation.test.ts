import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { evidenceRecordSchemaFor, sealEvidence } from '@rea/evidence';
import { outputJsonSchema } from '@rea/schema';
import { convert } from './validators.js';

type Json = Record<string, unknown>;

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const SUBSCHEMA_SINGLES = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'];

/** Every schema object of `schema` (schema positions only, never data such as `enum` or `const`). */
function schemasIn(schema: unknown, out: Json[] = []): Json[] {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return out;
  const node = schema as Json;
  out.push(node);
  for (const key of SUBSCHEMA_SINGLES) if (key in node) schemasIn(node[key], out);
  for (const key of SUBSCHEMA_MAPS)
    for (const child of Object.values((node[key] as Json | undefined) ?? {})) schemasIn(child, out);
  for (const key of SUBSCHEMA_LISTS)
    for (const child of (node[key] as unknown[] | undefined) ?? []) schemasIn(child, out);
  return out;
}

/** The schema with every `#/$defs/…` reference replaced by its definition, and no `$defs`, `$id` or `$schema`. */
function inlined(schema: Json): Json {
  const defs = (schema['$defs'] as Json | undefined) ?? {};
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (value === null || typeof value !== 'object') return value;
    const node = value as Json;
    const ref = node['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#/$defs/')) return visit(defs[ref.slice('#/$defs/'.length)]);
    const out: Json = {};
    for (const [key, child] of Object.entries(node)) {
      if (key === '$defs' || key === '$id' || key === '$schema') continue;
      out[key] = key === 'enum' || key === 'const' || key === 'required' ? child : visit(child);
    }
    return out;
  };
  return visit(schema) as Json;
}

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

const functionList = () =>
  z.strictObject({
    functions: z
      .array(
        z.strictObject({
          name: z.string().min(1).describe('Name.'),
          address: z.string().regex(/^0x[0-9a-f]+$/),
          kind: z.enum(['local', 'import']),
        }),
      )
      .max(500)
      .describe('Functions found.'),
    count: z.number().int().min(0),
  });

function record(normalized: unknown) {
  return sealEvidence({
    operation: 'list_functions',
    subject: { format: 'elf', sha256: 'c'.repeat(64), size: 10 },
    provider: { id: 'capstone', name: 'Capstone', version: '5.0.1' },
    analysis_profile: null,
    parameters: { limit: 64 },
    normalized_result: normalized as never,
    raw_result: null,
    confidence: 'observed',
    limitations: [],
    coverage: { status: 'complete', reasons: [] },
    locations: [],
    evidence_links: [],
  });
}

describe('outputJsonSchema presentation', () => {
  it('should carry no annotation in any subschema, while keeping properties named like annotations', () => {
    const schema = outputJsonSchema(
      z
        .strictObject({
          title: z.string().describe('The window title.'),
          description: z.string().meta({ title: 'Description', examples: ['A tool.'] }),
          mode: z.enum(['a', 'b']).default('a').describe('Mode.'),
        })
        .describe('A described result.'),
    );
    const annotated = schemasIn(schema).filter((node) =>
      ['description', 'title', 'examples', 'default', 'deprecated', '$comment'].some((key) => key in node),
    );
    expect(annotated).toEqual([]);
    expect(Object.keys(schema['properties'] as Json)).toEqual(['title', 'description', 'mode']);
  });

  it('should drop only a type that const or enum already implies, accepting exactly the same values', () => {
    const canonical = z.strictObject({
      version: z.literal(2),
      kind: z.enum(['a', 'b']),
      either: z.union([z.literal('x'), z.literal(1)]),
      level: z.number().int().min(0),
    });
    const schema = outputJsonSchema(canonical);
    const properties = schema['properties'] as Json;
    expect(properties['version']).toEqual({ const: 2 });
    expect(properties['kind']).toEqual({ enum: ['a', 'b'] });
    expect(properties['level']).toEqual({ type: 'integer', minimum: 0 });
    const converted = convert(schema);
    const good = { version: 2, kind: 'b', either: 1, level: 0 };
    expect(converted.ajvErrors(good)).toBe('');
    for (const bad of [
      { ...good, version: '2' },
      { ...good, version: 3 },
      { ...good, kind: 'c' },
      { ...good, kind: 1 },
      { ...good, either: 'y' },
      { ...good, either: '1' },
      { ...good, level: -1 },
      { ...good, level: 0.5 },
    ]) {
      expect({ bad, canonical: canonical.safeParse(bad).success }).toEqual({ bad, canonical: false });
      expect({ bad, advertised: converted.ajvAccepts(bad) }).toEqual({ bad, advertised: false });
    }
  });

  it('should fold a union of literals into one enum and drop a type every alternative implies, accepting the same values', () => {
    const canonical = z.strictObject({
      bits: z.union([z.literal(32), z.literal(64)]),
      mixed: z.union([z.literal('a'), z.enum(['b', 'a']), z.literal(null)]),
      view: z.discriminatedUnion('view', [
        z.strictObject({ view: z.literal('one'), a: z.string() }),
        z.strictObject({ view: z.literal('two'), b: z.number() }),
      ]),
      open: z.union([z.string(), z.number().int()]),
    });
    const schema = outputJsonSchema(canonical);
    const properties = schema['properties'] as Json;
    expect(properties['bits']).toEqual({ enum: [32, 64] });
    expect(properties['mixed']).toEqual({ enum: ['a', 'b', null] });
    expect(properties['view']).not.toHaveProperty('type');
    const view = properties['view'] as Json;
    expect(((view['anyOf'] ?? view['oneOf']) as Json[]).every((alt) => alt['type'] === 'object')).toBe(true);
    expect(properties['open']).toEqual({ anyOf: [{ type: 'string' }, { type: 'integer' }] });
    const converted = convert(schema);
    const good = { bits: 64, mixed: null, view: { view: 'two', b: 1.5 }, open: 3 };
    expect(converted.ajvErrors(good)).toBe('');
    expect(canonical.safeParse(good).success).toBe(true);
    for (const bad of [
      { ...good, bits: 48 },
      { ...good, bits: '32' },
      { ...good, mixed: 'c' },
      { ...good, view: { view: 'one', b: 1 } },
      { ...good, view: 'one' },
      { ...good, open: 1.5 },
      { ...good, open: null },
    ]) {
      expect({ bad, canonical: canonical.safeParse(bad).success }).toEqual({ bad, canonical: false });
      expect({ bad, advertised: converted.ajvAccepts(bad) }).toEqual({ bad, advertised: false });
    }
  });

  it('should state an all-required closed object by its property count, accepting exactly the same objects', () => {
    const canonical = z.strictObject({
      all: z.strictObject({ a: z.string(), b: z.number().nullable() }),
      some: z.strictObject({ a: z.string(), b: z.number().optional() }),
      long: z.strictObject({
        first_value: z.string(),
        second_value: z.string(),
        third_value: z.string(),
        fourth_value: z.string(),
        note: z.string().optional(),
      }),
      none: z.strictObject({}),
      open: z.looseObject({ a: z.string() }),
    });
    const schema = outputJsonSchema(canonical);
    const properties = schema['properties'] as Json;
    expect(properties['all']).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: ['number', 'null'] } },
      additionalProperties: false,
      minProperties: 2,
    });
    // One optional property: counted only when that is shorter than the required list.
    expect(properties['some']).toMatchObject({ required: ['a'], additionalProperties: false });
    expect(properties['long']).toMatchObject({ minProperties: 4, dependentSchemas: { note: { minProperties: 5 } } });
    expect(properties['long']).not.toHaveProperty('required');
    expect(properties['none']).toEqual({ type: 'object', maxProperties: 0 });
    expect(properties['open']).toEqual({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    expect(schema).toMatchObject({ minProperties: 5, additionalProperties: false });
    const converted = convert(schema);
    const long = { first_value: '1', second_value: '2', third_value: '3', fourth_value: '4' };
    const good = { all: { a: 'x', b: null }, some: { a: 'x' }, long, none: {}, open: { a: 'x', more: 1 } };
    expect(converted.ajvErrors({ ...good, long: { ...long, note: 'n' } })).toBe('');
    expect(converted.ajvErrors(good)).toBe('');
    expect(canonical.safeParse(good).success).toBe(true);
    for (const bad of [
      { ...good, all: { a: 'x' } },
      { ...good, all: { b: null, c: 1 } },
      { ...good, all: { a: 'x', b: null, c: 1 } },
      { ...good, all: { a: 'x', c: 1 } },
      { ...good, some: { b: 1 } },
      { ...good, some: { a: 'x', c: 1 } },
      { ...good, none: { a: 1 } },
      { ...good, open: { more: 1 } },
      { ...good, long: { first_value: '1', second_value: '2', third_value: '3', note: 'n' } },
      { ...good, long: { first_value: '1', second_value: '2', third_value: '3' } },
      { ...good, long: { ...long, note: 'n', other: 1 } },
      { all: good.all, some: good.some, long, none: good.none },
      { ...good, extra: 1 },
    ]) {
      expect({ bad, canonical: canonical.safeParse(bad).success }).toEqual({ bad, canonical: false });
      expect({ bad, advertised: converted.ajvAccepts(bad) }).toEqual({ bad, advertised: false });
    }
  });

  it('should name a shared definition after the shortest property it is reached under', () => {
    const digest = z.string().regex(/^[0-9a-f]{64}$/);
    const schema = outputJsonSchema(
      z.strictObject({
        left_digest: digest,
        sha256: digest,
        right_digest: digest,
        parent: z.strictObject({ d: digest }),
      }),
    );
    expect(Object.keys(schema['$defs'] as Json)).toEqual(['d']);
    expect((schema['properties'] as Json)['sha256']).toEqual({ $ref: '#/$defs/d' });
  });

  it('should share a repeated subschema only when sharing makes the schema smaller', () => {
    const digest = z.string().regex(/^[0-9a-f]{64}$/);
    const small = outputJsonSchema(z.strictObject({ a: z.string(), b: z.string(), c: z.string() }));
    expect(small['$defs']).toBeUndefined();
    const repeated = outputJsonSchema(z.strictObject({ a: digest, b: digest, c: digest, d: z.array(digest) }));
    expect(Object.keys(repeated['$defs'] as Json)).toHaveLength(1);
    expect(bytes(repeated)).toBeLessThan(
      bytes({ ...inlined(repeated), $schema: repeated['$schema'], $id: repeated['$id'] }),
    );
  });

  it('should keep every validation rule of normalized_result inside an Evidence record', () => {
    const record = outputJsonSchema(evidenceRecordSchemaFor(functionList()));
    const alone = outputJsonSchema(functionList());
    expect((inlined(record)['properties'] as Json)['normalized_result']).toEqual(inlined(alone));
    expect(JSON.stringify(alone)).toContain('"maxItems":500');
  });

  it('should keep every validation rule of the Evidence envelope', () => {
    const canonical = evidenceRecordSchemaFor(functionList());
    const converted = convert(outputJsonSchema(canonical));
    const good = record({ functions: [], count: 0 });
    expect(converted.ajvErrors(good)).toBe('');
    for (const bad of [
      { ...good, evidence_id: 'ev_short' },
      { ...good, subject: { format: '', sha256: 'not-hex', size: -1 } },
      { ...good, provider: { ...good.provider, extra: 1 } },
      { ...good, extra: true },
      { ...good, coverage: { status: 'unknown', reasons: [] } },
    ]) {
      expect({ bad, canonical: canonical.safeParse(bad).success }).toEqual({ bad, canonical: false });
      expect({ bad, advertised: converted.ajvAccepts(bad) }).toEqual({ bad, advertised: false });
    }
  });
});
