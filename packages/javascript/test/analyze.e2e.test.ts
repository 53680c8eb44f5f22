import { describe, expect, it } from '@jest/globals';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parseEvidence } from '@rea/evidence';
import { withTempDir } from '@rea/test-helpers';
import { run } from '../../cli/test/run.js';
import { electronAsar } from './helpers/fixtures.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', '..', 'rea', 'dist', 'bin.cjs');

/** The structured Evidence of a successful tool result (fails the test on an error result). */
function structured(result: Awaited<ReturnType<Client['callTool']>>): Record<string, unknown> {
  if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown>;
}

describe('analyze_javascript_application through the built rea', () => {
  it('should retain the analysis over MCP and page one module of it by node id', async () => {
    await withTempDir(async (tmp) => {
      const archive = await electronAsar(tmp);
      const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], stderr: 'ignore' });
      const client = new Client({ name: 'rea-javascript-e2e', version: '1.0.0' });
      await client.connect(transport);
      try {
        const summary = structured(
          await client.callTool({
            name: 'analyze_javascript_application',
            arguments: { path: archive, detail: 'summary' },
          }),
        );
        const result = summary['normalized_result'] as {
          view: string;
          parent_evidence_id: string;
          summary: { collections: Record<string, number> };
        };
        expect(summary['operation']).toBe('inspect_analysis_view');
        expect(result.view).toBe('summary');
        expect(result.summary.collections['ipc']).toBe(5);
        expect(summary['evidence_links']).toEqual([result.parent_evidence_id]);
        const view = structured(
          await client.callTool({
            name: 'inspect_analysis_view',
            arguments: {
              source: { kind: 'retained-evidence', evidence_id: result.parent_evidence_id },
              view: 'item',
              collection: 'modules',
              id: 'file:preload.js',
            },
          }),
        );
        expect(view['normalized_result']).toMatchObject({
          parent_evidence_id: result.parent_evidence_id,
          item: { path: 'preload.js', roles: ['preload'], source_type: 'script' },
        });
      } finally {
        await client.close();
      }
    });
  });

  it('should run as a command with --integrity-policy and print the Evidence', async () => {
    await withTempDir(async (tmp) => {
      const archive = await electronAsar(tmp);
      const out = await run(bin, [
        'analyze-javascript-application',
        archive,
        '--integrity-policy',
        'record-and-continue',
        '--format',
        'json',
      ]);
      expect(out.code).toBe(0);
      const record = parseEvidence(JSON.parse(out.stdout));
      expect(record.operation).toBe('analyze_javascript_application');
      expect(record.parameters).toEqual({ detail: 'complete', integrity_policy: 'record-and-continue' });
      // main.js, preload.js, renderer.js and index.html (for its inline script).
      expect((record.normalized_result as { roles: unknown[] }).roles).toHaveLength(4);
      const missing = await run(bin, ['analyze-javascript-application', join(tmp, 'absent'), '--format', 'json']);
      expect(JSON.parse(missing.stdout)).toMatchObject({
        error: { code: 'not_found', operation: 'analyze_javascript_application' },
      });
      expect(missing.code).toBe(3);
    });
  });
});
