// The built rea: detail "summary" over the real MCP client, and the analysis worker's limits through
// the bundled command line, which must find the worker's module by package name.
import { describe, expect, it } from '@jest/globals';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { withTempDir } from '@rea/test-helpers';
import { run } from '../../cli/test/run.js';
import { bigApplication, electronApp } from './helpers/fixtures.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', '..', 'rea', 'dist', 'bin.cjs');

type Result = Awaited<ReturnType<Client['callTool']>>;

function structured(result: Result): Record<string, unknown> {
  if (result.isError) throw new Error(`tool failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Record<string, unknown>;
}

function diagnostic(result: Result): { code: string; details: Record<string, unknown> } {
  expect(result.isError).toBe(true);
  const [content] = result.content as Array<{ type: string; text: string }>;
  return (JSON.parse(content!.text) as { error: { code: string; details: Record<string, unknown> } }).error;
}

describe('analyze_javascript_application through the built rea', () => {
  it('should answer summary with the view of exactly the complete record, over MCP', async () => {
    await withTempDir(async (tmp) => {
      const app = electronApp(tmp);
      const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], stderr: 'ignore' });
      const client = new Client({ name: 'rea-javascript-issue-19', version: '1.0.0' });
      await client.connect(transport);
      try {
        const call = (args: Record<string, unknown>) =>
          client.callTool({ name: 'analyze_javascript_application', arguments: { path: app, ...args } });
        const complete = structured(await call({}));
        const summary = structured(await call({ detail: 'summary' }));
        const view = summary['normalized_result'] as {
          parent_evidence_id: string;
          parent_operation: string;
          summary: { application: { name: string; electron: boolean }; semantic_coverage: unknown[] };
        };
        expect(summary['operation']).toBe('inspect_analysis_view');
        expect(view.parent_evidence_id).toBe(complete['evidence_id']);
        expect(view.parent_operation).toBe('analyze_javascript_application');
        expect(summary['evidence_links']).toEqual([complete['evidence_id']]);
        expect(view.summary.application).toMatchObject({ name: 'notes-app', electron: true });
        expect(view.summary.semantic_coverage).toHaveLength(7);

        // The summary's own reference traces the analysis it names.
        const trace = structured(
          await client.callTool({
            name: 'trace_application_feature',
            arguments: {
              application: { kind: 'retained-evidence', evidence_id: summary['evidence_id'] },
              seed: { kind: 'ipc_channel', value: 'notes:save' },
            },
          }),
        );
        expect(trace['evidence_links']).toEqual([complete['evidence_id']]);

        // A runaway input ends at the worker's heap limit; the server answers the next call.
        const big = bigApplication(tmp, 400_000);
        const refused = diagnostic(await call({ path: big, max_heap_mb: 32 }));
        expect([refused.code, refused.details['resource']]).toEqual(['resource_constraint', 'memory']);
        expect(structured(await call({}))['evidence_id']).toBe(complete['evidence_id']);
      } finally {
        await client.close();
      }
    });
  }, 180_000);

  it('should cancel a running analysis over MCP and retain nothing of it', async () => {
    await withTempDir(async (tmp) => {
      const big = bigApplication(tmp, 400_000);
      const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], stderr: 'ignore' });
      const client = new Client({ name: 'rea-javascript-issue-19-cancel', version: '1.0.0' });
      await client.connect(transport);
      try {
        const controller = new AbortController();
        const outcome = await client
          .callTool(
            { name: 'analyze_javascript_application', arguments: { path: big, detail: 'summary' } },
            // The first progress notification: the worker is running.
            { signal: controller.signal, onprogress: () => controller.abort(new Error('stop')) },
          )
          .then(
            () => 'completed',
            () => 'rejected',
          );
        expect(outcome).toBe('rejected');
        // The connection goes on; its ledger holds only what completed afterwards.
        const small = structured(
          await client.callTool({ name: 'analyze_javascript_application', arguments: { path: electronApp(tmp) } }),
        );
        const bundle = structured(
          await client.callTool({ name: 'get_evidence_bundle', arguments: { detail: 'summary' } }),
        );
        const records = bundle['records'] as Array<{ evidence_id: string }>;
        expect(records.map((r) => r.evidence_id)).toEqual([small['evidence_id']]);
      } finally {
        await client.close();
      }
    });
  });

  it('should bound the analysis from the bundled command line: memory and cpu', async () => {
    await withTempDir(async (tmp) => {
      const big = bigApplication(tmp, 400_000);
      const memory = await run(bin, ['analyze-javascript-application', big, '--max-heap-mb', '32', '--format', 'json']);
      expect(JSON.parse(memory.stdout)).toMatchObject({
        error: { code: 'resource_constraint', details: { resource: 'memory', limit_mb: 32 } },
      });
      expect(memory.code).toBe(11);
      const cpu = await run(bin, ['analyze-javascript-application', big, '--max-duration-ms', '1', '--format', 'json']);
      expect(JSON.parse(cpu.stdout)).toMatchObject({
        error: { code: 'resource_constraint', details: { resource: 'cpu', limit_ms: 1 } },
      });
      expect(cpu.code).toBe(11);
      // Within its limits the bundled command finds the worker and completes.
      const done = await run(bin, ['analyze-javascript-application', electronApp(tmp), '--format', 'json']);
      expect(done.code).toBe(0);
      expect(JSON.parse(done.stdout)).toMatchObject({ operation: 'analyze_javascript_application' });
    });
  });
});
