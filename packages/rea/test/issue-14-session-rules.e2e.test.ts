/* eslint-disable @typescript-eslint/no-explicit-any -- results are JSON explored by path in assertions */
// Session rules of the built `rea mcp`, driven by the MCP client over a real stdio pipe: binary_session
// reports every tool's effect record flag by flag (the same as the generated catalog), a failed
// open_binary allocates no run and leaves an open target as it was, and detail "summary" retains exactly the record "complete" answers.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '..', 'dist', 'bin.cjs');
const catalogFile = join(here, '..', '..', '..', 'docs', 'public', 'product-catalog.json');
const FLAGS = [
  'readOnly',
  'mutatesSession',
  'writesFilesystem',
  'launchesProcess',
  'executesForeignCode',
  'mutatesDevice',
  'mayDiscardData',
  'idempotent',
  'openWorld',
];

type Result = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: unknown };
const valueOf = <T = Record<string, any>>(result: Result): T => {
  if (result.isError) throw new Error(`unexpected failure: ${result.content[0]?.text ?? ''}`);
  return result.structuredContent as T;
};
const diagnosticOf = (result: Result): Record<string, any> => {
  expect(result.isError).toBe(true);
  return (JSON.parse(result.content[0]!.text!) as { error: Record<string, any> }).error;
};

describe('rea mcp session rules (issue 14)', () => {
  let dir: string;
  let client: Client;
  let binary: string;
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<Result> =>
    (await client.callTool({ name, arguments: args }, { timeout: 120_000 })) as Result;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rea-session-rules-'));
    writeFileSync(join(dir, 'hello.c'), '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n');
    binary = join(dir, 'hello');
    execFileSync('cc', ['-O1', '-o', binary, join(dir, 'hello.c')]);
    client = new Client({ name: 'rea-e2e', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], stderr: 'ignore', cwd: dir }),
    );
  });
  afterAll(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should report each tool effect record flag by flag, as the generated catalog and annotations do', async () => {
    const session = valueOf(await call('binary_session'));
    const catalog = JSON.parse(readFileSync(catalogFile, 'utf8')) as {
      tools: Array<{ name: string; effects: Record<string, boolean> }>;
    };
    const { tools } = await client.listTools();
    const listed = new Map(tools.map((tool) => [tool.name, tool.annotations]));
    const generated = new Map(catalog.tools.map((tool) => [tool.name, tool.effects]));
    const entries = session['tool_availability'] as Array<{ name: string; effects: Record<string, boolean> }>;
    expect(entries.map((entry) => entry.name).sort()).toEqual([...generated.keys()].sort());
    for (const entry of entries) {
      expect(Object.keys(entry.effects)).toEqual(FLAGS);
      for (const flag of FLAGS) expect(typeof entry.effects[flag]).toBe('boolean');
      expect(Object.keys(generated.get(entry.name)!).sort()).toEqual([...FLAGS].sort());
      expect(entry.effects).toEqual(generated.get(entry.name));
      const effects = entry.effects;
      // The MCP defaults of an omitted hint: readOnly false, destructive true, idempotent false, openWorld true.
      const hints = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
      expect({ ...hints, ...listed.get(entry.name) }).toMatchObject({
        readOnlyHint: effects['readOnly'],
        destructiveHint: effects['mayDiscardData']! || effects['executesForeignCode']! || effects['mutatesDevice']!,
        idempotentHint: effects['idempotent'],
        openWorldHint: effects['openWorld'],
      });
    }
    const byName = new Map(entries.map((entry) => [entry.name, entry.effects]));
    expect(byName.get('close_binary')).toMatchObject({ mutatesSession: true, mayDiscardData: true });
    expect(byName.get('binary_session')).toMatchObject({ readOnly: true, mutatesSession: false });
    expect(byName.get('export_evidence_bundle')).toMatchObject({ writesFilesystem: true });
  });

  it('should allocate no run for a failed open_binary, and keep the target and run open before it', async () => {
    expect(diagnosticOf(await call('open_binary', { path: binary, provider_id: 'nope' })).code).toBe(
      'provider_selection',
    );
    let session = valueOf(await call('binary_session'));
    expect(session['target']).toBeNull();
    expect(session['analysis_run']).toBeNull();
    const opened = valueOf(await call('open_binary', { path: binary }));
    expect(opened['analysis_run'].run_id).toMatch(/^run_/);
    session = valueOf(await call('binary_session'));
    expect(session['analysis_run']).toEqual(opened['analysis_run']);
    // A choice that selects no provider (a mistyped id, a target no provider supports) changes nothing:
    // the open target, its provider and its run stay, and its tools still answer.
    const before = session;
    expect(diagnosticOf(await call('open_binary', { path: binary, provider_id: 'nope' })).code).toBe(
      'provider_selection',
    );
    const apk = join(dir, 'not-native.zip');
    execFileSync('zip', ['-q', '-j', apk, join(dir, 'hello.c')]);
    expect(diagnosticOf(await call('open_binary', { path: apk })).code).toBe('provider_selection');
    session = valueOf(await call('binary_session'));
    expect(session['target']).toEqual(before['target']);
    expect(session['analysis_run']).toEqual(opened['analysis_run']);
    expect(session['analysis_provider_binding']).toEqual(before['analysis_provider_binding']);
    const procedures = valueOf(await call('list_procedures', { limit: 1 }));
    expect(procedures['normalized_result'].items).toHaveLength(1);
    valueOf(await call('close_binary'));
  });

  it('should retain, for detail "summary", the very record "complete" returns and answer with its view summary', async () => {
    valueOf(await call('close_binary'));
    const summary = valueOf(await call('inspect_binary_layout', { path: binary, detail: 'summary' }));
    expect(summary['operation']).toBe('inspect_analysis_view');
    const parentId = summary['normalized_result'].parent_evidence_id as string;
    expect(summary['evidence_links']).toEqual([parentId]);
    const complete = valueOf(await call('inspect_binary_layout', { path: binary }));
    expect(complete['evidence_id']).toBe(parentId);
    const ref = { kind: 'retained-evidence', evidence_id: parentId };
    const viewed = valueOf(await call('inspect_analysis_view', { source: ref, view: 'summary' }));
    expect(viewed).toEqual(summary);
    const bundle = valueOf(await call('get_evidence_bundle', { detail: 'summary' }));
    const layouts = (bundle['records'] as Array<{ operation: string }>).filter(
      (record) => record.operation === 'inspect_binary_layout',
    );
    expect(layouts).toHaveLength(1);
    valueOf(await call('close_binary'));
  });
});
