import { expect } from '@jest/globals';
import { fromJsonSchema } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { z } from 'zod';

/**
 * Ajv for JSON Schema 2020-12, strict in everything but unknown keywords (strictSchema off); formats
 * are left to the SDK's validator, which registers them.
 */
function strictAjv(): Ajv2020 {
  return new Ajv2020({
    strict: true,
    strictSchema: false,
    allowUnionTypes: true,
    validateFormats: false,
    allErrors: true,
  });
}

/** An advertised schema after the MCP SDK's own conversion, with the SDK's and a strict ajv validator. */
export interface Converted {
  /** The schema the SDK would list (`~standard.jsonSchema.input`, as its tool registration calls it). */
  schema: Record<string, unknown>;
  /** Validation by the SDK's own validator (ajv 2020 with formats). */
  sdkAccepts: (value: unknown) => boolean;
  /** Validation by a strict ajv 2020 compile of the converted schema. */
  ajvAccepts: (value: unknown) => boolean;
  ajvErrors: (value: unknown) => string;
}

// One engine of each kind for the whole suite, as a server keeps them; compiled schemas are reused
// by `$id` exactly as the SDK does.
const sdkValidator = new AjvJsonSchemaValidator();
const ajv = strictAjv();

/** Passes `schema` through the SDK (`fromJsonSchema`), then compiles what it returns with strict ajv. */
export function convert(schema: Record<string, unknown>): Converted {
  const wrapped = fromJsonSchema(schema, sdkValidator);
  const converted = wrapped['~standard'].jsonSchema.input({ target: 'draft-2020-12' }) as Record<string, unknown>;
  const id = converted['$id'];
  const compiled = (typeof id === 'string' ? ajv.getSchema(id) : undefined) ?? ajv.compile(converted);
  return {
    schema: converted,
    sdkAccepts: (value) => {
      const result = wrapped['~standard'].validate(value);
      if (result instanceof Promise) throw new Error('the SDK validator is synchronous');
      return result.issues === undefined;
    },
    ajvAccepts: (value) => compiled(value) === true,
    ajvErrors: (value) => (compiled(value) ? '' : ajv.errorsText(compiled.errors)),
  };
}

/** Asserts that `value` passes the advertised schema (SDK and strict ajv) and the canonical zod schema. */
export function expectAcceptedEverywhere(converted: Converted, canonical: z.ZodType, value: unknown): void {
  expect({ value, ajv: converted.ajvErrors(value) }).toEqual({ value, ajv: '' });
  expect(converted.sdkAccepts(value)).toBe(true);
  expect(canonical.safeParse(value).success).toBe(true);
}
