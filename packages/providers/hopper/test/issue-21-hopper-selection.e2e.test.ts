/* eslint-disable @typescript-eslint/no-explicit-any -- results are JSON explored by path in assertions */
// The built `rea mcp` with stand-in Ghidra and Hopper engines both ready (tests/helpers/standin), over
// the MCP client on a real stdio pipe: candidates sorted by id, `auto` refusing to choose between two
// ready external engines, an explicit Hopper binding through the real launcher path, a cancelled
// startup and close/reopen recovery, with nothing owned left behind.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  createStandinGhidra,
  createStandinHopper,
  serverTempDir,
  setStandinScenario,
  standinProcesses,
  standinWorkspace,
} from '@rea/test-helpers';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'rea', 'dist', 'bin.cjs');

type Result = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: any };
const valueOf = (result: Result): any => {
  if (result.isError) throw new Error(`unexpected failure: ${result.content[0]?.text ?? ''}`);
  return result.structuredContent;
};
const diagnosticOf = (result: Result): Record<string, any> => {
  expect(result.isError).toBe(true);
  return (JSON.parse(result.content[0]!.text!) as { error: Record<string, any> }).error;
};
// The servers' temporary directory: one of this file's own (what other test files create at the same
// time is not the servers'); what the servers leave in it fails the file.
const serverTmp = serverTempDir();
afterAll(async () => expect(await serverTmp.finish()).toEqual([]));
const ownedDirs = () => serverTmp.entries(/^rea-hopper-[A-Za-z0-9]{6}$/);

describe('Hopper provider and selection over MCP with stand-in engines (issue 21)', () => {
  const space = standinWorkspace('hopper-e2e');
  let client: Client;
  const call = async (name: string, args: Record<string, unknown> = {}, options: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args }, { timeout: 120_000, ...options })) as Result;

  beforeAll(async () => {
    const env = {
      ...createStandinGhidra(space.dir, { mode: 'normal' }),
      ...createStandinHopper(space.dir, { mode: 'hang' }),
    };
    client = new Client({ name: 'rea-hopper-e2e', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, 'mcp'],
        stderr: 'ignore',
        cwd: space.dir,
        env: { PATH: process.env['PATH'] ?? '', TMPDIR: serverTmp.dir, ...env },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    space.dispose();
  });

  it('lists both engines sorted by id and refuses to choose between them for auto', async () => {
    const candidates = valueOf(await call('binary_session')).analysis_provider_candidates as Array<Record<string, any>>;
    const ids = candidates.map((c) => c.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(expect.arrayContaining(['capstone', 'ghidra', 'hopper']));
    expect(candidates.find((c) => c.id === 'hopper')).toMatchObject({ available: true, embedded: false });
    const ambiguous = diagnosticOf(await call('open_binary', { path: space.target.path, provider_id: 'auto' }));
    expect(ambiguous).toMatchObject({
      code: 'provider_selection',
      details: { requested: 'auto', reason: 'ambiguous' },
    });
    const offered = (ambiguous['details'].candidates as Array<{ id: string }>).map((c) => c.id);
    expect(offered).toEqual([...offered].sort());
    expect(standinProcesses(space.dir)).toEqual([]);
  });

  it('binds hopper explicitly, survives a cancelled startup by close/reopen, and answers through its bridge', async () => {
    const opened = valueOf(await call('open_binary', { path: space.target.path, provider_id: 'hopper' }));
    expect(opened.analysis_provider_binding).toMatchObject({
      provider: { id: 'hopper', version: '5.19.3' },
      selection_source: 'argument',
      analysis_profile: { name: 'hopper-scripted', version: '5.19.3' },
    });
    await expect(call('list_procedures', {}, { timeout: 1500 })).rejects.toThrow(/timed out|timeout/i);
    expect(diagnosticOf(await call('list_procedures'))).toMatchObject({
      code: 'provider_unavailable',
      details: { provider_id: 'hopper', cause: 'cancelled' },
    });
    valueOf(await call('close_binary'));
    expect(standinProcesses(space.dir)).toEqual([]);
    expect(ownedDirs()).toEqual([]);
    setStandinScenario(space.dir, 'hopper', { mode: 'normal' });
    valueOf(await call('open_binary', { path: space.target.path, provider_id: 'hopper' }));
    const listing = valueOf(await call('list_procedures'));
    expect(listing.provider).toMatchObject({ id: 'hopper', version: '5.19.3' });
    expect(listing.normalized_result.items.map((p: { name: string }) => p.name)).toEqual(['_start', 'main', 'helper']);
    const pseudo = valueOf(await call('procedure_pseudo_code', { procedure: 'main' }));
    expect(JSON.stringify(pseudo.normalized_result)).toContain('helper();');
    // While the binary is open, the engine's working directory is there.
    expect(ownedDirs()).toHaveLength(1);
    valueOf(await call('close_binary'));
    expect(standinProcesses(space.dir)).toEqual([]);
    expect(ownedDirs()).toEqual([]);
  });
});
