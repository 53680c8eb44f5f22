import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { canonicalJson, evidenceRecordSchemaFor, sealEvidence } from '@rea/evidence';
import { JSON_SCHEMA_DIALECT, SCHEMA_ID_PREFIX, outputJsonSchema } from '@rea/schema';
import { convert } from './validators.js';
import { expectReaError } from './errors.js';

const result = () =>
  z.strictObject({
    functions: z
      .array(z.strictObject({ name: z.string().describe('Name.'), address: z.string().regex(/^0x[0-9a-f]+$/) }))
      .describe('Functions found.'),
    count: z.number().int().min(0),
  });

function collectRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => collectRefs(item, out));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') out.push(item);
      else collectRefs(item, out);
    }
  }
  return out;
}

describe('outputJsonSchema', () => {
  it('should declare the 2020-12 dialect and an $id bound to the canonical schema including the dialect', () => {
    const schema = outputJsonSchema(result());
    expect(schema['$schema']).toBe(JSON_SCHEMA_DIALECT);
    const { $id, ...content } = schema;
    const expected = createHash('sha256').update(canonicalJson(content), 'utf8').digest('base64url');
    expect($id).toMatch(/^urn:rea:sha256:[A-Za-z0-9_-]{43}$/);
    expect($id).toBe(`${SCHEMA_ID_PREFIX}${expected}`);
    const { $schema: _dialect, ...withoutDialect } = content;
    const other = createHash('sha256').update(canonicalJson(withoutDialect), 'utf8').digest('base64url');
    expect($id).not.toBe(`${SCHEMA_ID_PREFIX}${other}`);
  });

  it('should give equal schemas one identity and any change another', () => {
    const a = outputJsonSchema(result());
    expect(outputJsonSchema(result())['$id']).toBe(a['$id']);
    const extended = outputJsonSchema(result().extend({ note: z.string().optional() }));
    const constrained = outputJsonSchema(result().extend({ count: z.number().int().min(1) }));
    expect(new Set([a['$id'], extended['$id'], constrained['$id']]).size).toBe(3);
  });

  it('should bind the identity to validation only: prose is not advertised, so it does not change the $id', () => {
    const described = outputJsonSchema(result().describe('Functions.').meta({ title: 'Functions' }));
    expect(described).toEqual(outputJsonSchema(result()));
  });

  it('should preserve an explicit $id, absolute or a relative reference base', () => {
    for (const id of ['https://rea.example/schemas/functions.json', 'schemas/functions.json']) {
      const schema = outputJsonSchema(result().meta({ $id: id }));
      expect(schema['$id']).toBe(id);
      expect(schema['$schema']).toBe(JSON_SCHEMA_DIALECT);
    }
  });

  it('should be self-contained: every reference is local and resolves', () => {
    const shared = z.strictObject({ name: z.string().min(1).describe('A long enough description.'), size: z.number() });
    const schema = outputJsonSchema(
      evidenceRecordSchemaFor(z.strictObject({ a: shared, b: shared, c: z.array(shared) })),
    );
    const refs = collectRefs(schema);
    expect(refs.length).toBeGreaterThan(0);
    const defs = schema['$defs'] as Record<string, unknown>;
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/\$defs\//);
      expect(defs[ref.slice('#/$defs/'.length)]).toBeDefined();
    }
  });

  it('should validate a sealed Evidence record and reject a malformed one, like the canonical schema', () => {
    const output = evidenceRecordSchemaFor(result());
    const record = sealEvidence({
      operation: 'list_functions',
      subject: { format: 'elf', sha256: 'c'.repeat(64), size: 10 },
      provider: { id: 'capstone', name: 'Capstone', version: '5.0.1' },
      analysis_profile: null,
      parameters: { limit: 64 },
      normalized_result: { functions: [{ name: 'main', address: '0x401000' }], count: 1 },
      raw_result: null,
      confidence: 'observed',
      limitations: [],
      coverage: { status: 'complete', reasons: [] },
      locations: [],
      evidence_links: [],
    });
    const converted = convert(outputJsonSchema(output));
    expect(converted.ajvErrors(record)).toBe('');
    expect(converted.sdkAccepts(record)).toBe(true);
    for (const bad of [
      { ...record, normalized_result: { functions: [{ name: 'main', address: 'main' }], count: 1 } },
      { ...record, confidence: 'guessed' },
      { ...record, extra: 1 },
    ]) {
      expect(output.safeParse(bad).success).toBe(false);
      expect(converted.ajvAccepts(bad)).toBe(false);
    }
  });

  it('should let the SDK validator cache schemas by $id without mixing different schemas up', () => {
    const validator = new AjvJsonSchemaValidator();
    const first = validator.getValidator(outputJsonSchema(z.strictObject({ a: z.string() })));
    const second = validator.getValidator(outputJsonSchema(z.strictObject({ a: z.number() })));
    expect(first({ a: 'x' }).valid).toBe(true);
    expect(second({ a: 'x' }).valid).toBe(false);
    expect(second({ a: 1 }).valid).toBe(true);
  });

  it('should refuse a recursive output schema', () => {
    const Node = z.strictObject({
      get next(): z.ZodNullable<typeof Node> {
        return Node.nullable();
      },
    });
    expectReaError(() => outputJsonSchema(Node), 'invalid_request', 'recursive-schema');
  });
});
