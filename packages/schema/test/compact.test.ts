import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { COMPACT_INPUT_SCHEMA_BUDGET, inputJsonSchema } from '@rea/schema';
import { convert, expectAcceptedEverywhere } from './validators.js';
import { expectReaError } from './errors.js';

type Schema = Record<string, unknown>;
const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');
const props = (schema: Schema): Record<string, Schema> => schema['properties'] as Record<string, Schema>;

/** A schema whose validation structure alone is several times the budget: 24 sections of 12 fields. */
function oversized(): z.ZodObject {
  const field = (i: number) =>
    z.strictObject({
      name: z
        .string()
        .regex(new RegExp(`^field_${i}_[a-z]+$`))
        .describe(`Name of field ${i}.`),
      mode: z.enum(['read', 'write', 'execute', 'none']).describe('Access mode.'),
      size: z
        .number()
        .int()
        .min(0)
        .max(1 << 20)
        .nullable()
        .describe('Size in bytes.'),
      tags: z.array(z.string().min(1).max(32)).max(16).describe('Tags.'),
    });
  const section = (s: number) =>
    z
      .strictObject(
        Object.fromEntries(
          Array.from({ length: 12 }, (_, i) => [
            `field_${s}_${i}`,
            field(s * 100 + i)
              .optional()
              .describe(`Field ${i}.`),
          ]),
        ),
      )
      .describe(`Section ${s}.`);
  return z
    .strictObject(Object.fromEntries(Array.from({ length: 24 }, (_, s) => [`section_${s}`, section(s)])))
    .describe('A deliberately oversized input.');
}

describe('compact profile', () => {
  it('should keep an ordinary schema complete but within the budget, with no references', () => {
    const Shared = z.strictObject({
      id: z
        .string()
        .regex(/^ev_[0-9a-f]{64}$/)
        .describe('Id.'),
      kind: z.literal('retained-evidence').describe('Kind.'),
    });
    const input = z.strictObject({ a: Shared, b: Shared, c: z.array(Shared).describe('More.') }).describe('Root.');
    const full = inputJsonSchema(input, 'full').schema;
    expect(full['$defs']).toBeDefined();
    const { schema, reduced } = inputJsonSchema(input, 'compact');
    expect(reduced).toBe(false);
    expect(JSON.stringify(schema)).not.toContain('$ref');
    expect(schema).not.toHaveProperty('$defs');
    expect(props(schema)['a']).toEqual(props(schema)['b']);
    expect(props(schema)['a']).toMatchObject({ required: ['id', 'kind'], additionalProperties: false });
    expect(bytes(schema)).toBeLessThanOrEqual(COMPACT_INPUT_SCHEMA_BUDGET);
    const converted = convert(schema);
    const ok = { kind: 'retained-evidence', id: `ev_${'a'.repeat(64)}` };
    expectAcceptedEverywhere(converted, input, { a: ok, b: ok, c: [ok] });
    expect(converted.ajvAccepts({ a: ok, b: { ...ok, id: 'ev_1' }, c: [] })).toBe(false);
  });

  it('should advertise a schema whose structure exceeds the budget in the reduced form, within the budget', () => {
    const input = oversized();
    const compactFull = JSON.stringify(inputJsonSchema(input, 'full').schema);
    expect(bytes(compactFull)).toBeGreaterThan(COMPACT_INPUT_SCHEMA_BUDGET * 2);
    const { schema, reduced } = inputJsonSchema(input, 'compact');
    expect(reduced).toBe(true);
    expect(bytes(schema)).toBeLessThanOrEqual(COMPACT_INPUT_SCHEMA_BUDGET);
    // Root guidance and required fields survive; nested detail is elided.
    expect(schema['type']).toBe('object');
    expect(String(schema['description'])).toContain('A deliberately oversized input.');
    expect(schema['required']).toHaveLength(24);
    expect(schema['additionalProperties']).toBe(false);
    expect(props(schema)['section_3']).toMatchObject({ type: 'object', description: 'Section 3.' });
    expect(JSON.stringify(schema)).not.toContain('pattern');
    // Property names reach as deep as the budget allows: here the fields of every section.
    const sectionProps = props(props(schema)['section_3']!);
    expect(Object.keys(sectionProps)).toHaveLength(12);
    expect(sectionProps['field_3_0']!['type']).toBe('object');
  });

  it('should keep the reduced form accepting every canonical input and reporting types of unions and nullables', () => {
    const input = oversized();
    const { schema } = inputJsonSchema(input, 'compact');
    const converted = convert(schema);
    const value = Object.fromEntries(
      Array.from({ length: 24 }, (_, s) => [
        `section_${s}`,
        s % 2 === 0
          ? {}
          : { [`field_${s}_1`]: { name: `field_${s * 100 + 1}_x`, mode: 'read', size: null, tags: ['a'] } },
      ]),
    );
    expectAcceptedEverywhere(converted, input, value);
    // A call that only the canonical schema rejects gets the typed error from the server instead.
    const malformed = { ...value, section_1: { field_1_1: { name: 'bad', mode: 'read', size: null, tags: [] } } };
    expect(input.safeParse(malformed).success).toBe(false);
    expect(converted.ajvAccepts(malformed)).toBe(true);
  });

  it('should measure an exponential expansion without allocating it', () => {
    // 2^26 leaves when expanded (gigabytes); shared, it is 27 small definitions.
    let level: z.ZodType = z.strictObject({
      leaf: z.string().min(1).describe('Leaf text.'),
      n: z.number().describe('N.'),
    });
    for (let i = 0; i < 26; i += 1)
      level = z.strictObject({ left: level.describe('Left.'), right: level.describe('Right.') });
    const input = z.strictObject({ tree: level.describe('Tree.') });
    const full = inputJsonSchema(input, 'full').schema;
    expect(bytes(full)).toBeLessThan(20_000);
    const { schema, reduced } = inputJsonSchema(input, 'compact');
    expect(reduced).toBe(true);
    expect(bytes(schema)).toBeLessThanOrEqual(COMPACT_INPUT_SCHEMA_BUDGET);
    expect(props(schema)['tree']).toMatchObject({ type: 'object', description: 'Tree.' });
  });

  it('should refuse a schema whose root alone cannot fit, naming the reason', () => {
    const input = z.strictObject(
      Object.fromEntries(
        Array.from({ length: 1200 }, (_, i) => [`a_rather_long_property_name_${i}`, z.string().describe('A field.')]),
      ),
    );
    const error = expectReaError(() => inputJsonSchema(input, 'compact'), 'invalid_request', 'schema-too-large');
    expect(error.details['budget']).toBe(COMPACT_INPUT_SCHEMA_BUDGET);
    expect(() => inputJsonSchema(input, 'full')).not.toThrow();
  });
});
