import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { JsonValueSchema } from '@rea/evidence';
import { inputJsonSchema } from '@rea/schema';
import { convert, expectAcceptedEverywhere } from './validators.js';
import { expectReaError } from './errors.js';

type Schema = Record<string, unknown>;
const props = (schema: Schema): Record<string, Schema> => schema['properties'] as Record<string, Schema>;

/** Every listed value gets the same verdict from the advertised schema (SDK and ajv) and from zod. */
function expectSameVerdicts(schema: Schema, canonical: z.ZodType, values: unknown[]): void {
  const converted = convert(schema);
  for (const value of values) {
    const expected = canonical.safeParse(value).success;
    expect({ value, ajv: converted.ajvAccepts(value), sdk: converted.sdkAccepts(value) }).toEqual({
      value,
      ajv: expected,
      sdk: expected,
    });
  }
}

describe('inputJsonSchema: recursion', () => {
  it('should refuse a schema that recurses through a getter', () => {
    const Node = z.strictObject({
      name: z.string().describe('Node name.'),
      get children(): z.ZodArray<typeof Node> {
        return z.array(Node).describe('Child nodes.');
      },
    });
    const input = z.strictObject({ tree: Node.describe('A tree.') });
    for (const profile of ['full', 'compact'] as const) {
      const error = expectReaError(() => inputJsonSchema(input, profile), 'invalid_request', 'recursive-schema');
      expect(String(error.details['path'])).toContain('children');
    }
  });

  it('should refuse a schema that recurses through z.lazy', () => {
    const List: z.ZodType = z.lazy(() => z.strictObject({ value: z.number(), next: List.nullable() }));
    expectReaError(
      () => inputJsonSchema(z.strictObject({ list: List.describe('A list.') }), 'full'),
      'invalid_request',
      'recursive-schema',
    );
  });

  it('should accept the same schema used in many places, which is not recursion', () => {
    const Leaf = z.strictObject({ id: z.string().describe('Id.') });
    const input = z.strictObject({ a: Leaf, b: z.array(Leaf), c: z.strictObject({ d: Leaf }) });
    expect(() => inputJsonSchema(input, 'full')).not.toThrow();
  });
});

describe('inputJsonSchema: shared definitions', () => {
  const Location = z.strictObject({
    file: z.string().min(1).describe('Source file path inside the target.'),
    line: z.number().int().min(1).describe('Line number, from 1.'),
    column: z.number().int().min(1).optional().describe('Column number, from 1.'),
  });
  const input = z.strictObject({
    start: Location,
    end: Location,
    marks: z.array(Location).describe('Marked locations.'),
    label: z.string().describe('A label.'),
    note: z.string().describe('A note.'),
  });

  it('should put a repeated sub-schema once into $defs and refer to it without sibling keywords', () => {
    const { schema } = inputJsonSchema(input, 'full');
    const defs = schema['$defs'] as Record<string, Schema>;
    expect(Object.keys(defs)).toHaveLength(1);
    const [name] = Object.keys(defs);
    const ref = { $ref: `#/$defs/${name}` };
    expect(props(schema)['start']).toEqual(ref);
    expect(props(schema)['end']).toEqual(ref);
    expect(props(schema)['marks']!['items']).toEqual(ref);
    // The definition is complete: fields, descriptions and rules.
    const def = defs[name!]!;
    expect(Object.keys(props(def))).toEqual(['file', 'line', 'column']);
    expect(props(def)['line']).toMatchObject({ type: 'integer', minimum: 1, description: 'Line number, from 1.' });
    expect(def['required']).toEqual(['file', 'line']);
    expect(def['additionalProperties']).toBe(false);
  });

  it('should not share small repeated schemas such as a plain string', () => {
    const { schema } = inputJsonSchema(input, 'full');
    expect(props(schema)['label']).toEqual({ type: 'string', description: 'A label.' });
  });

  it('should keep every nested validation rule of a shared definition', () => {
    const { schema } = inputJsonSchema(input, 'full');
    const good = {
      start: { file: 'a.c', line: 1 },
      end: { file: 'a.c', line: 9, column: 2 },
      marks: [],
      label: '',
      note: '',
    };
    expectSameVerdicts(schema, input, [
      good,
      { ...good, start: { file: 'a.c', line: 0 } },
      { ...good, marks: [{ file: '', line: 3 }] },
      { ...good, end: { file: 'a.c', line: 2, extra: true } },
      { ...good, start: { file: 'a.c', line: 1.5 } },
    ]);
  });
});

describe('inputJsonSchema: root unions', () => {
  const ref = z.strictObject({
    id: z
      .string()
      .regex(/^ev_[0-9a-f]{4}$/)
      .describe('Id.'),
  });
  const discriminated = z.discriminatedUnion('mode', [
    z
      .strictObject({
        mode: z.literal('passive').describe('Comparison family.'),
        before: ref.describe('Earlier capture.'),
        after: ref.describe('Later capture.'),
      })
      .describe('Compare passive captures'),
    z.strictObject({
      mode: z.literal('scenario').describe('Comparison family.'),
      before_scenario: ref.describe('Earlier scenario.'),
      after_scenario: ref.describe('Later scenario.'),
      normalization: z.array(z.string()).default([]).describe('Normalization rules.'),
    }),
  ]);
  const passive = { mode: 'passive', before: { id: 'ev_0001' }, after: { id: 'ev_0002' } };
  const scenarioInput = { mode: 'scenario', before_scenario: { id: 'ev_0003' }, after_scenario: { id: 'ev_0004' } };

  it('should present a discriminated root union as one object without a root combinator', () => {
    for (const profile of ['full', 'compact'] as const) {
      const { schema } = inputJsonSchema(discriminated, profile);
      expect(schema['type']).toBe('object');
      for (const keyword of ['anyOf', 'oneOf', 'allOf']) expect(schema).not.toHaveProperty(keyword);
      expect(Object.keys(props(schema)).sort()).toEqual(
        ['after', 'after_scenario', 'before', 'before_scenario', 'mode', 'normalization'].sort(),
      );
      expect(schema['required']).toEqual(['mode']);
      expect(props(schema)['mode']).toMatchObject({ type: 'string', enum: ['passive', 'scenario'] });
      expect(schema['dependentRequired']).toEqual({
        before: ['after'],
        after: ['before'],
        before_scenario: ['after_scenario'],
        after_scenario: ['before_scenario'],
        normalization: ['before_scenario', 'after_scenario'],
      });
      const description = String(schema['description']);
      expect(description).toContain('mode="passive"');
      expect(description).toContain('mode="scenario"');
      expect(description).toContain('requires before, after');
      expect(description).toContain('Compare passive captures');
    }
  });

  it('should accept every group and reject incomplete pairs, like the canonical union', () => {
    const { schema } = inputJsonSchema(discriminated, 'full');
    expectSameVerdicts(schema, discriminated, [
      passive,
      scenarioInput,
      { ...scenarioInput, normalization: ['drop-timestamps'] },
      { mode: 'passive', before: { id: 'ev_0001' } },
      { mode: 'scenario', after_scenario: { id: 'ev_0004' } },
      { mode: 'other', before: { id: 'ev_0001' }, after: { id: 'ev_0002' } },
      { ...passive, before: { id: 'nope' } },
      { ...passive, unknown: 1 },
    ]);
  });

  it('should leave exclusions it cannot express to the canonical schema: a mixed input', () => {
    const { schema } = inputJsonSchema(discriminated, 'full');
    const mixed = { ...passive, before_scenario: { id: 'ev_0003' }, after_scenario: { id: 'ev_0004' } };
    const converted = convert(schema);
    expect(converted.ajvAccepts(mixed)).toBe(true);
    expect(converted.sdkAccepts(mixed)).toBe(true);
    expect(discriminated.safeParse(mixed).success).toBe(false);
  });

  it('should merge a plain (non-discriminated) union, nested unions included', () => {
    const byAddress = z.strictObject({
      address: z
        .string()
        .regex(/^0x[0-9a-f]+$/)
        .describe('Address.'),
    });
    const byName = z.strictObject({
      name: z.string().min(1).describe('Name.'),
      exact: z.boolean().optional().describe('Exact.'),
    });
    const byId = z.strictObject({ id: z.number().int().describe('Id.') });
    const input = z.union([byAddress, z.union([byName, byId])]);
    const { schema } = inputJsonSchema(input, 'full');
    expect(schema).not.toHaveProperty('anyOf');
    expect(schema).not.toHaveProperty('required');
    expect(schema['dependentRequired']).toEqual({ exact: ['name'] });
    expect(schema['additionalProperties']).toBe(false);
    expect(String(schema['description'])).toMatch(/3 input groups/);
    expectSameVerdicts(schema, input, [
      { address: '0x10' },
      { name: 'main' },
      { name: 'main', exact: true },
      { id: 3 },
      { exact: true },
      { address: 'main' },
      { id: 'x' },
    ]);
  });

  it('should merge a property carried by several groups into the alternatives of each', () => {
    const input = z.union([
      z.strictObject({ kind: z.literal('a').describe('Kind.'), value: z.string().describe('Text value.') }),
      z.strictObject({ kind: z.literal('b').describe('Kind.'), value: z.number().describe('Numeric value.') }),
    ]);
    const { schema } = inputJsonSchema(input, 'full');
    const value = props(schema)['value']!;
    expect(value['type']).toEqual(['string', 'number']);
    expect(value['description']).toBe('Text value. | Numeric value.');
    expectSameVerdicts(schema, input, [
      { kind: 'a', value: 'x' },
      { kind: 'b', value: 2 },
      { kind: 'a', value: true },
    ]);
  });

  it('should merge literal discriminators into one enum, but not when a group takes any value', () => {
    const input = z.union([
      z.strictObject({ kind: z.literal('a').describe('Kind.'), n: z.number().describe('N.') }),
      z.strictObject({ kind: z.enum(['b', 'c']).describe('Kind.'), s: z.string().describe('S.') }),
      z.strictObject({ kind: z.string().describe('Kind.'), free: z.boolean().describe('Free.') }),
    ]);
    const { schema } = inputJsonSchema(input, 'full');
    expect(props(schema)['kind']!['enum']).toBeUndefined();
    expectSameVerdicts(schema, input, [
      { kind: 'a', n: 1 },
      { kind: 'c', s: 'x' },
      { kind: 'zzz', free: true },
      { kind: 5, free: true },
    ]);
    const closed = z.union([input.options[0], input.options[1]]);
    const merged = inputJsonSchema(closed, 'full').schema;
    expect(props(merged)['kind']).toMatchObject({ type: 'string', enum: ['a', 'b', 'c'] });
    expectSameVerdicts(merged, closed, [
      { kind: 'a', n: 1 },
      { kind: 'b', s: 'x' },
      { kind: 'd', s: 'x' },
    ]);
  });

  it('should not close the merged object when a group accepts unknown keys', () => {
    const input = z.union([
      z.object({ a: z.string().describe('A.') }),
      z.strictObject({ b: z.string().describe('B.') }),
    ]);
    const { schema } = inputJsonSchema(input, 'full');
    expect(schema).not.toHaveProperty('additionalProperties');
    // A loose group accepts "b" of any type, so the merged "b" must too.
    expectSameVerdicts(schema, input, [{ a: 'x', b: 5 }, { b: 'y' }, { a: 'x', c: [1] }]);
  });

  it('should refuse a root that is not an object or a union of objects', () => {
    expectReaError(() => inputJsonSchema(z.string(), 'full'), 'invalid_request', 'input-not-object');
    expectReaError(
      () => inputJsonSchema(z.union([z.strictObject({ a: z.string() }), z.string()]), 'full'),
      'invalid_request',
      'input-not-object',
    );
  });

  it('should refuse a type JSON Schema cannot express', () => {
    expectReaError(
      () => inputJsonSchema(z.strictObject({ when: z.date().describe('When.') }), 'full'),
      'invalid_request',
      'unrepresentable-schema',
    );
  });
});

describe('inputJsonSchema: optional, nullable, records, unconstrained JSON', () => {
  const input = z.strictObject({
    optional: z.string().optional().describe('May be absent.'),
    nullable: z.string().nullable().describe('Present, maybe null.'),
    nullish: z.number().int().nullish().describe('Absent, null or an integer.'),
    choice: z.enum(['x', 'y']).nullable().describe('x, y or null.'),
    defaulted: z.number().default(5).describe('Defaults to 5.'),
    counts: z.record(z.string(), z.number().int().min(0)).describe('Counts by name.'),
    payload: JsonValueSchema.describe('Any JSON value.'),
  });
  const base = { nullable: null, choice: null, counts: {}, payload: null };

  it('should distinguish optional (not required) from nullable (null in its type)', () => {
    for (const profile of ['full', 'compact'] as const) {
      const { schema } = inputJsonSchema(input, profile);
      expect(schema['required']).toEqual(['nullable', 'choice', 'counts', 'payload']);
      expect(props(schema)['optional']!['type']).toBe('string');
      expect(props(schema)['nullable']!['type']).toEqual(['string', 'null']);
      expect(props(schema)['nullish']!['type']).toEqual(['integer', 'null']);
      expect(props(schema)['choice']).toMatchObject({ type: ['string', 'null'], enum: ['x', 'y', null] });
    }
    const { schema } = inputJsonSchema(input, 'full');
    expect(props(schema)['defaulted']).toMatchObject({ type: 'number', default: 5 });
    expectSameVerdicts(schema, input, [
      base,
      { ...base, optional: 'a', nullable: 'b', nullish: 3, choice: 'x', defaulted: 1 },
      { ...base, optional: null },
      { ...base, nullable: undefined },
      { optional: 'a', choice: null, counts: {}, payload: 1 },
      { ...base, nullish: null },
      { ...base, nullish: 1.5 },
      { ...base, choice: 'z' },
    ]);
  });

  it('should advertise records as objects whose values carry the value schema', () => {
    const { schema } = inputJsonSchema(input, 'full');
    expect(props(schema)['counts']).toEqual({
      type: 'object',
      additionalProperties: { type: 'integer', minimum: 0 },
      description: 'Counts by name.',
    });
    expectSameVerdicts(schema, input, [
      { ...base, counts: { a: 1, b: 0 } },
      { ...base, counts: { a: -1 } },
      { ...base, counts: { a: 'x' } },
      { ...base, counts: [] },
    ]);
  });

  it('should list every JSON type explicitly for unconstrained JSON, in both profiles', () => {
    for (const profile of ['full', 'compact'] as const) {
      const { schema } = inputJsonSchema(input, profile);
      expect(props(schema)['payload']!['type']).toEqual(['object', 'array', 'string', 'number', 'boolean', 'null']);
      const converted = convert(schema);
      for (const payload of [{ a: [1] }, [1, 'x'], 'text', 2.5, false, null]) {
        expectAcceptedEverywhere(converted, input, { ...base, payload });
      }
    }
  });
});

describe('inputJsonSchema: annotations', () => {
  const input = z
    .strictObject({
      target: z
        .string()
        .describe('Target path.')
        .meta({ examples: ['/bin/ls'], title: 'Target' }),
      depth: z.number().int().min(1).max(8).default(2).describe('Search depth.'),
    })
    .describe('Search a target.');

  it('should keep property descriptions, titles, defaults and literal examples in the full profile', () => {
    const { schema } = inputJsonSchema(input, 'full');
    expect(schema['description']).toBe('Search a target.');
    expect(props(schema)['target']).toMatchObject({
      description: 'Target path.',
      examples: ['/bin/ls'],
      title: 'Target',
    });
    expect(props(schema)['depth']).toMatchObject({ default: 2, description: 'Search depth.', minimum: 1, maximum: 8 });
  });

  it('should drop nested annotations in the compact profile and keep the root description and rules', () => {
    const { schema, reduced } = inputJsonSchema(input, 'compact');
    expect(reduced).toBe(false);
    expect(schema).toEqual({
      description: 'Search a target.',
      type: 'object',
      properties: { target: { type: 'string' }, depth: { type: 'integer', minimum: 1, maximum: 8 } },
      required: ['target'],
      additionalProperties: false,
    });
  });
});
