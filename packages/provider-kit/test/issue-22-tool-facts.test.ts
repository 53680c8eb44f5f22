import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { NO_EFFECTS, defineTool, toolFactsMismatch, toolFactsOf } from '@rea/provider-kit';

const base = {
  title: 'Probe tool',
  description: 'Test tool: returns nothing of interest, for the facts.',
  produces: 'result' as const,
  input: z.strictObject({}),
  result: z.strictObject({}),
  examples: [{ input: {} }],
  effects: { ...NO_EFFECTS, readOnly: true, idempotent: true },
  run: async () => ({}),
};
const plain = defineTool({ ...base, name: 'plain_tool', clientFeatures: { optional: ['sampling', 'progress'] } });
const gated = defineTool({
  ...base,
  name: 'gated_tool',
  availability: () => ({ available: false, reason: 'no target', remediation: 'Open one.' }),
});

describe('issue 22: tool facts', () => {
  it('should state the effects and sorted client features of a tool', () => {
    expect(toolFactsOf(plain)).toEqual({
      name: 'plain_tool',
      effects: { ...NO_EFFECTS, readOnly: true, idempotent: true },
      clientFeatures: { required: [], optional: ['progress', 'sampling'] },
    });
    expect(toolFactsOf(gated)).toEqual({
      ...toolFactsOf(plain),
      name: 'gated_tool',
      clientFeatures: { required: [], optional: [] },
    });
  });

  it('should name every tool whose declared facts differ from its contract', () => {
    const facts = toolFactsOf(plain)!;
    expect(toolFactsMismatch([facts], [plain])).toEqual([]);
    expect(toolFactsMismatch([{ ...facts, effects: { ...facts.effects, openWorld: true } }], [plain])).toEqual([
      'plain_tool',
    ]);
    expect(
      toolFactsMismatch([{ ...facts, clientFeatures: { required: ['sampling'], optional: [] } }], [plain]),
    ).toEqual(['plain_tool']);
    expect(toolFactsMismatch([facts, { ...facts, name: 'gated_tool' }], [plain, gated])).toEqual(['gated_tool']);
    expect(toolFactsMismatch([], [plain])).toEqual(['plain_tool']);
    expect(toolFactsMismatch([facts, { ...facts, name: 'other_tool' }], [plain])).toEqual(['other_tool']);
    // A shared availability check: the tools that declare it match, the others do not.
    const gatedFacts = toolFactsOf(gated);
    expect(toolFactsMismatch([gatedFacts], [gated], gated.availability)).toEqual([]);
    expect(toolFactsMismatch([facts], [plain], gated.availability)).toEqual(['plain_tool']);
  });
});
