import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { RECORDS_EVIDENCE, defineTool } from '@rea/provider-kit';
import { connectInMemory, unitObservation, unitToolsProvider } from './unitTools.js';

const OUTPUT = '/tmp/rea-extract-0123456789abcdef01234567';

// Stands for an extraction whose file list does not fit one response: its directory is on disk.
const bigExtraction = defineTool({
  name: 'big_extraction',
  title: 'Big extraction',
  description: 'Test tool: Evidence with a large result and a machine-local output directory.',
  produces: 'evidence',
  input: z.strictObject({}),
  result: z.strictObject({ files: z.array(z.string()) }),
  examples: [{ input: {} }],
  effects: { ...RECORDS_EVIDENCE, writesFilesystem: true, idempotent: false },
  run: async () =>
    unitObservation(
      { files: Array.from({ length: 400_000 }, (_, i) => `folder/file-${i}.js`) },
      { local: { output_directory: OUTPUT } },
    ),
});

describe('issue 15: a result too large for one response', () => {
  it('should name the output directory the call left on disk in the refusal', async () => {
    const client = await connectInMemory([unitToolsProvider([bigExtraction])]);
    try {
      const refused = await client.callTool({ name: 'big_extraction', arguments: {} });
      expect(refused.isError).toBe(true);
      const diagnostic = JSON.parse((refused.content as Array<{ text: string }>)[0]!.text) as {
        error: { code: string; details: Record<string, unknown> };
      };
      expect(diagnostic.error.code).toBe('resource_constraint');
      expect(diagnostic.error.details).toMatchObject({ resource: 'transport', output_directory: OUTPUT });
    } finally {
      await client.close();
    }
  });
});
