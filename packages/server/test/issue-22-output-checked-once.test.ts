import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { NO_EFFECTS, RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import type { AnyToolContract, Provider } from '@rea/provider-kit';
import { createReaServer } from '@rea/server';

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
  run: async () => ({
    subject: null,
    provider: { id: 'unit-tools', name: 'Unit test tools', version: '0.0.0' },
    analysis_profile: null,
    parameters: {},
    normalized_result: { rows: ['a', 'b'] },
    raw_result: null,
    confidence: 'observed' as const,
    limitations: [],
    coverage: { status: 'complete' as const, reasons: [] },
    locations: [],
    evidence_links: [],
  }),
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

const provider: Provider = {
  id: 'unit-tools',
  name: 'Unit test tools',
  version: '0.0.0',
  kind: 'tools',
  capabilities: [],
  probe: async () => ({ status: 'ready' }),
  tools: () => [evidenceTool, plainTool, handMade],
};

describe('issue 22: a tool result is validated once per call', () => {
  it('should judge a defineTool result once, and still check a contract defineTool did not make', async () => {
    const server = createReaServer({ providers: [provider], package: { name: 'unit', version: '1.2.3' }, env: {} });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'unit', version: '1' });
    await client.connect(clientSide);
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
