import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ERROR_CODE_LIST } from '@rea/evidence';
import { NO_EFFECTS, defineTool } from '@rea/provider-kit';
import { EXIT_CODES, commandName, commandSpecOf, exitCodeFor } from '@rea/cli';

const effects = { ...NO_EFFECTS, readOnly: true, idempotent: true };

function tool(name: string, input: z.ZodType, example: unknown) {
  return defineTool({
    name,
    title: name,
    description: 'A contract used to check how inputs map to the command line.',
    produces: 'result',
    input,
    result: z.object({}),
    examples: [{ input: example as never }],
    effects,
    run: async () => ({}),
  });
}

describe('commandSpecOf', () => {
  it('should map scalars to flags, arrays of scalars to repeatable flags, objects to JSON flags, and reserved names to --input', () => {
    const spec = commandSpecOf(
      tool(
        'compare_things',
        z.strictObject({
          left_path: z.string().describe('Left.'),
          depth: z.number().int().default(3).describe('Depth.'),
          mode: z.enum(['fast', 'full']).optional().describe('Mode.'),
          strict: z.boolean().optional().describe('Strict.'),
          names: z.array(z.string()).optional().describe('Names.'),
          filters: z.object({ a: z.string() }).optional().describe('Filters.'),
          format: z.string().optional().describe('Collides with --format.'),
        }),
        { left_path: 'a' },
      ),
    );
    expect(spec.command).toBe('compare-things');
    expect(spec.positional).toBe('left_path');
    expect(spec.flags.map((f) => [f.flag, f.type, f.required, f.repeatable])).toEqual([
      ['--left-path', 'string', true, false],
      ['--depth', 'number', false, false],
      ['--mode', 'enum', false, false],
      ['--strict', 'boolean', false, false],
      ['--names', 'string', false, true],
      ['--filters', 'json', false, false],
    ]);
    expect(spec.flags.find((f) => f.flag === '--mode')!.choices).toEqual(['fast', 'full']);
    expect(spec.jsonOnly).toEqual(['format']);
  });

  it('should require a property of a root union only when every member requires it', () => {
    const spec = commandSpecOf(
      tool(
        'pick_one',
        z.union([
          z.strictObject({ path: z.string().describe('Path.'), detail: z.string().optional().describe('Detail.') }),
          z.strictObject({ path: z.string().describe('Path.'), url: z.string().describe('URL.') }),
        ]),
        { path: 'x' },
      ),
    );
    expect(spec.flags.map((f) => [f.property, f.required])).toEqual([
      ['path', true],
      ['detail', false],
      ['url', false],
    ]);
    expect(spec.positional).toBe('path');
  });

  it('should give a contract without required strings no positional', () => {
    const spec = commandSpecOf(
      tool('list_all', z.strictObject({ limit: z.number().optional().describe('Limit.') }), {}),
    );
    expect(spec.positional).toBeNull();
    expect(commandName('inspect_analysis_view')).toBe('inspect-analysis-view');
  });
});

describe('EXIT_CODES', () => {
  it('should give every error code its own non-zero status, and cancellation 130', () => {
    const statuses = ERROR_CODE_LIST.map((code) => exitCodeFor(code));
    expect(statuses.every((s) => s > 0)).toBe(true);
    expect(new Set(statuses).size).toBe(ERROR_CODE_LIST.length);
    expect(Object.keys(EXIT_CODES).sort()).toEqual([...ERROR_CODE_LIST, 'success'].sort());
    expect(exitCodeFor('cancelled')).toBe(130);
    expect(EXIT_CODES.success).toBe(0);
  });
});
