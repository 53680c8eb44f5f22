import { describe, expect, it } from '@jest/globals';
import { PORTABILITY_RULES, checkPortability } from '@rea/schema';

const good = {
  type: 'object',
  description: 'Root.',
  properties: {
    a: { $ref: '#/$defs/thing' },
    b: { type: 'array', items: { $ref: '#/$defs/thing' } },
    c: { type: ['string', 'null'] },
  },
  required: ['a'],
  additionalProperties: false,
  $defs: { thing: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] } },
};

function failed(name: string, schema: Record<string, unknown>): string[] {
  return checkPortability(name, schema)
    .rules.filter((r) => !r.passed)
    .map((r) => r.rule);
}

/** A schema describing `levels` levels of nested objects (the innermost holds a string). */
function nested(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = { type: 'object', properties: { leaf: { type: 'string' } } };
  for (let i = 1; i < levels; i += 1) node = { type: 'object', properties: { x: node } };
  return node;
}

describe('checkPortability', () => {
  it('should pass a portable schema and report every rule', () => {
    const report = checkPortability('list_functions', good);
    expect(report.passed).toBe(true);
    expect(report.rules.map((r) => r.rule)).toEqual([...PORTABILITY_RULES]);
  });

  it.each([
    ['tool-name', '9tools', good],
    ['tool-name', 'a'.repeat(65), good],
    ['tool-name', 'has space', good],
    ['root-type-object', 'tool', { ...good, type: 'array' }],
    ['no-root-combinator', 'tool', { ...good, anyOf: [{ required: ['a'] }] }],
    ['no-root-combinator', 'tool', { ...good, allOf: [{}] }],
    ['property-types', 'tool', { ...good, properties: { ...good.properties, d: { description: 'untyped' } } }],
    [
      'property-types',
      'tool',
      { ...good, properties: { a: { $ref: '#/$defs/untyped' } }, $defs: { untyped: { enum: [1] } } },
    ],
    ['required-declared', 'tool', { ...good, required: ['a', 'missing'] }],
    ['local-refs', 'tool', { ...good, properties: { a: { $ref: 'https://example.test/s.json' } } }],
    ['local-refs', 'tool', { ...good, properties: { a: { $ref: '#/$defs/thing', description: 'sibling' } } }],
    ['local-refs', 'tool', { ...good, properties: { a: { $ref: '#/$defs/absent' } } }],
  ])('should fail rule %s for %s', (rule, name, schema) => {
    expect(failed(name, schema as Record<string, unknown>)).toContain(rule);
  });

  it('should fail no-recursion for a definition that reaches itself, and still terminate', () => {
    const recursive = {
      type: 'object',
      properties: { n: { $ref: '#/$defs/node' } },
      $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } },
    };
    expect(failed('tool', recursive)).toEqual(expect.arrayContaining(['no-recursion', 'nesting-depth']));
  });

  it('should allow ten levels of nesting and refuse eleven', () => {
    expect(failed('tool', nested(10))).toEqual([]);
    expect(failed('tool', nested(11))).toEqual(['nesting-depth']);
  });

  it('should never throw on hostile input', () => {
    for (const schema of [null, [], 'text', 5, { properties: null, required: 'x' }, nested(20_000)]) {
      const report = checkPortability('tool', schema as unknown as Record<string, unknown>);
      expect(report.passed).toBe(false);
    }
  });
});
