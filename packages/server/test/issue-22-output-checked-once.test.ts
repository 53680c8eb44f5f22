import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { NO_EFFECTS, RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import type { AnyToolContract } from '@rea/provider-kit';
import { connectInMemory, unitObservation, unitToolsProvider } from './unitTools.js';

// Each result schema counts how often a value is judged against it.
const judged = { evidence: 0, plain: 0 };
const counted = (key: keyof typeof judged) =>
  z.strictObject({ rows: z.array(z.string()) }).superRefine(() => {
    judged[key] += 1;
  });

const evidenceTool = defineTool({
  name: 'counted_evidence',
  title: 'Counted evidence',
  description: 'Test tool: Evidence whose result schema counts the times it is applied.',
  produces: 'evidence',
  input: z.strictObject({}),
  result: counted('evidence'),
  examples: [{ input: {} }],
  effects: RECORDS_EVIDENCE,
  run: async () => unitObservation({ rows: ['a', 'b'] }),
});

const plainTool = defineTool({
  name: 'counted_result',
  title: 'Counted result',
  description: 'Test tool: a plain result whose schema counts the times it is applied.',
  produces: 'result',
  input: z.strictObject({}),
  result: counted('plain'),
  examples: [{ input: {} }],
  effects: { ...NO_EFFECTS, readOnly: true, idempotent: true },
  run: async () => ({ rows: ['c'] }),
});

// Not made by defineTool: its advertised output is not what its execution checks, so the server checks it.
const handMade: AnyToolContract = {
  ...plainTool,
  name: 'hand_made_result',
  output: z.strictObject({ other: z.string() }),
} as AnyToolContract;

describe('issue 22: a tool result is validated once per call', () => {
  it('should judge a defineTool result once, and still check a contract defineTool did not make', async () => {
    const client = await connectInMemory([unitToolsProvider([evidenceTool, plainTool, handMade])]);
    try {
      const evidence = await client.callTool({ name: 'counted_evidence', arguments: {} });
      expect(evidence.isError).not.toBe(true);
      expect(evidence.structuredContent).toMatchObject({ normalized_result: { rows: ['a', 'b'] } });
      const plain = await client.callTool({ name: 'counted_result', arguments: {} });
      expect(plain.isError).not.toBe(true);
      expect(plain.structuredContent).toEqual({ rows: ['c'] });
      expect(judged).toEqual({ evidence: 1, plain: 1 });

      const refused = await client.callTool({ name: 'hand_made_result', arguments: {} });
      expect(refused.isError).toBe(true);
      const diagnostic = JSON.parse((refused.content as Array<{ text: string }>)[0]!.text) as {
        error: { code: string; message: string };
      };
      expect(diagnostic.error.code).toBe('internal');
      expect(diagnostic.error.message).toContain('violates its advertised output schema');
    } finally {
      await client.close();
    }
  });
});
