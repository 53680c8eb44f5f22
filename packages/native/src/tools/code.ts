import { AddressSchema } from '../address.js';
import { InstructionSchema, pageSchema, pagingInput } from '../schemas.js';
import { pageCoverage, pageResult, z } from './common.js';
import { procedureTool } from './portTool.js';

/** The most instructions procedure_assembly returns in one record; past it, read_function_instructions pages. */
export const ASSEMBLY_LIMIT = 4000;

function listing(items: ReadonlyArray<{ address: string; mnemonic: string; operands: string }>): string {
  return items.map((i) => `${i.address}  ${i.mnemonic}${i.operands ? ` ${i.operands}` : ''}`).join('\n');
}

/** procedure_assembly: a procedure's disassembly as text and rows. */
export const procedureAssembly = procedureTool({
  name: 'procedure_assembly',
  title: 'Procedure assembly',
  description: `Disassembles one procedure (entry address or exact name) and returns its instructions as rows and as a text listing. Up to ${ASSEMBLY_LIMIT} instructions; larger procedures are partial with next_offset, continue with read_function_instructions.`,
  result: z.strictObject({
    procedure: AddressSchema,
    name: z.string(),
    instructions: z.array(InstructionSchema),
    text: z.string(),
    total: z.number().int().nonnegative(),
  }),
  examples: [{ input: { procedure: 'main' } }],
  capability: 'instructions',
  run: async ({ info, port, context }) => {
    const page = await port.instructions(info.address, { offset: 0, limit: ASSEMBLY_LIMIT }, context.signal);
    return {
      result: {
        procedure: info.address,
        name: info.name,
        instructions: page.items,
        text: listing(page.items),
        total: page.total,
      },
      coverage: pageCoverage(page),
    };
  },
});

/** read_function_instructions: a procedure's instructions, offset-paginated, without whole-program work. */
export const readFunctionInstructions = procedureTool({
  name: 'read_function_instructions',
  title: 'Read function instructions',
  description:
    "Reads one page of a procedure's instructions (address order) by offset and limit. Use it for large procedures or to read a function incrementally; follow next_offset until it is null.",
  input: pagingInput,
  result: z.strictObject({ procedure: AddressSchema, page: pageSchema(InstructionSchema) }),
  examples: [{ input: { procedure: 'main' } }, { input: { procedure: '0x401126', offset: 100, limit: 100 } }],
  capability: 'instructions',
  run: async ({ info, input, port, context }) => {
    const page = await port.instructions(info.address, { offset: input.offset, limit: input.limit }, context.signal);
    return {
      result: { procedure: info.address, page: pageResult(page, input.offset) },
      coverage: pageCoverage(page),
    };
  },
});

/** procedure_pseudo_code: decompiled source, from providers that decompile. */
export const procedurePseudoCode = procedureTool({
  name: 'procedure_pseudo_code',
  title: 'Procedure pseudocode',
  description:
    'Returns decompiled pseudocode for one procedure. Only providers that declare pseudocode (decompilers) offer it; with any other provider it fails with capability_unavailable naming the installed providers that do.',
  result: z.strictObject({ procedure: AddressSchema, name: z.string(), language: z.string(), text: z.string() }),
  examples: [{ input: { procedure: 'main' } }],
  capability: 'pseudocode',
  run: async ({ info, port, context }) => {
    const code = await port.pseudocode!(info.address, context.signal);
    return {
      result: { procedure: info.address, name: info.name, language: code.language, text: code.text },
      confidence: 'derived',
    };
  },
});
