/* eslint-disable @typescript-eslint/no-explicit-any -- results are JSON explored by path in assertions */
// The built `rea mcp` with a stand-in Ghidra (tests/helpers/standin: a scripted engine speaking the
// bridge protocol, started as support/analyzeHeadless of a temporary GHIDRA_INSTALL_DIR), driven by
// the MCP client over a real stdio pipe: binding, a client timeout during startup, the sticky failure,
// close/reopen recovery on the same connection, a crash mid-query, garbage answers, a wrong imported
// digest, a slow import crossing waiting notices, and a hang past the startup deadline.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  createStandinGhidra,
  serverTempDir,
  setStandinScenario,
  standinProcesses,
  standinWorkspace,
} from '@rea/test-helpers';
import type { StandinScenario } from '@rea/test-helpers';

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
const ownedDirs = () => serverTmp.entries(/^rea-ghidra-/);

async function connect(env: Record<string, string>, cwd: string): Promise<Client> {
  const client = new Client({ name: 'rea-ghidra-e2e', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp'],
      stderr: 'ignore',
      cwd,
      env: { PATH: process.env['PATH'] ?? '', TMPDIR: serverTmp.dir, ...env },
    }),
  );
  return client;
}

describe('Ghidra provider over MCP with the stand-in engine (issue 21)', () => {
  const space = standinWorkspace('ghidra-e2e');
  let env: { GHIDRA_INSTALL_DIR: string; JAVA_HOME: string };
  let client: Client;
  const scenario = (s: StandinScenario) => setStandinScenario(space.dir, 'ghidra', s);
  const call = async (name: string, args: Record<string, unknown> = {}, options: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args }, { timeout: 120_000, ...options })) as Result;
  const reopen = async () => {
    expect(valueOf(await call('close_binary'))).toMatchObject({ closed_provider: 'ghidra' });
    expect(standinProcesses(space.dir)).toEqual([]);
    expect(ownedDirs()).toEqual([]);
    return valueOf(await call('open_binary', { path: space.target.path, provider_id: 'ghidra' }));
  };

  beforeAll(async () => {
    env = createStandinGhidra(space.dir, { mode: 'hang' });
    client = await connect({ ...env, REA_GHIDRA_STARTUP_TIMEOUT_MS: '120000' }, space.dir);
  });
  afterAll(async () => {
    await client?.close();
    space.dispose();
  });

  it('lists ghidra as a ready candidate and binds it with its concrete version, starting nothing', async () => {
    const session = valueOf(await call('binary_session'));
    const candidates = session.analysis_provider_candidates as Array<{ id: string; available: boolean }>;
    expect(candidates.map((c) => c.id)).toEqual([...candidates.map((c) => c.id)].sort());
    expect(candidates.find((c) => c.id === 'ghidra')).toMatchObject({ available: true, embedded: false });
    // auto picks the single ready external engine.
    const opened = valueOf(await call('open_binary', { path: space.target.path, provider_id: 'auto' }));
    expect(opened.analysis_provider_binding).toMatchObject({
      provider: { id: 'ghidra', version: '11.3.1' },
      selection_source: 'auto',
      analysis_profile: { name: 'ghidra-headless', version: '11.3.1' },
    });
    expect(standinProcesses(space.dir)).toEqual([]);
  });

  it('stops the startup when the client times out, keeps ghidra bound, and recovers by close/reopen', async () => {
    const progress: string[] = [];
    await expect(
      call(
        'binary_overview',
        {},
        { timeout: 1500, onprogress: (p: { message?: string }) => progress.push(p.message ?? '') },
      ),
    ).rejects.toThrow(/timed out|timeout/i);
    expect(progress[0]).toMatch(/binary_overview: started/);
    expect(progress.some((m) => /startup: starting Ghidra/.test(m))).toBe(true);
    // The same provider stays bound and reports why it is not running, with the recovery.
    const stopped = diagnosticOf(await call('list_procedures'));
    expect(stopped).toMatchObject({
      code: 'provider_unavailable',
      details: { provider_id: 'ghidra', cause: 'cancelled' },
    });
    expect(stopped['remediation']).toMatch(/close_binary, then open_binary .*provider_id "ghidra"/);
    expect(valueOf(await call('binary_session')).analysis_provider_binding.provider.id).toBe('ghidra');

    scenario({ mode: 'normal', pseudocodeRepeat: 1 });
    await reopen();
    const notices: string[] = [];
    const overview = valueOf(
      await call('binary_overview', {}, { onprogress: (p: { message?: string }) => notices.push(p.message ?? '') }),
    );
    expect(overview.provider).toMatchObject({ id: 'ghidra', version: '11.3.1' });
    expect(overview.normalized_result.procedure_count).toBe(3);
    // Startup notices are intermediate updates under the 100 ms rate bound, so a quick restart may
    // send none of them; the slow-import case below checks them.
    const pseudo = valueOf(await call('procedure_pseudo_code', { procedure: 'main' }));
    expect(JSON.stringify(pseudo.normalized_result)).toContain('helper();');
    // The stand-in's high p-code of main: a CALL to helper, then a RETURN at main's end.
    const dossier = valueOf(await call('analyze_function', { procedure: 'main' })).normalized_result;
    expect(dossier.high_pcode).toEqual({
      ops: [
        { address: '0x401010', mnemonic: 'CALL', output: null, inputs: ['ram:0x401030:8'] },
        { address: '0x401030', mnemonic: 'RETURN', output: null, inputs: ['const:0x0:8'] },
      ],
      total: 2,
    });
    expect(dossier.unavailable).not.toContain('high_pcode');
    const context = valueOf(await call('inspect_address_context', { address: '0x401010' }));
    expect(context.normalized_result.comment).toEqual({ status: 'ok', value: 'stand-in: entry of main' });
    expect(context.normalized_result.bookmark.value).toEqual([{ category: 'Analysis', text: 'stand-in bookmark' }]);
  });

  it('reports a crash mid-query with the engine exit, then the sticky failure', async () => {
    scenario({ mode: 'crash' });
    await reopen();
    const crash = diagnosticOf(await call('list_procedures'));
    expect(crash['code']).toBe('execution_failure');
    expect(JSON.stringify(crash)).toMatch(/bridge-closed|engine-exited/);
    const after = diagnosticOf(await call('list_procedures'));
    expect(after).toMatchObject({ code: 'provider_unavailable', details: { cause: 'execution_failure' } });
  });

  it('breaks the channel on an answer outside the protocol', async () => {
    scenario({ mode: 'garbage' });
    await reopen();
    const garbage = diagnosticOf(await call('list_procedures'));
    expect(garbage).toMatchObject({ code: 'execution_failure', details: { reason: 'bridge-protocol' } });
  });

  it('gives no answer from bytes whose digest differs from the target', async () => {
    scenario({ mode: 'wrong-digest' });
    await reopen();
    const mismatch = diagnosticOf(await call('list_procedures'));
    expect(mismatch).toMatchObject({
      code: 'artifact_integrity_mismatch',
      details: { declared_sha256: space.target.sha256 },
    });
    expect(mismatch['details'].observed_sha256).not.toBe(space.target.sha256);
  });

  it('sends a waiting notice every 10 s while a slow import is pending (real time)', async () => {
    scenario({ mode: 'slow', delayMs: 22_000 });
    await reopen();
    const notices: string[] = [];
    const result = await call(
      'list_procedures',
      {},
      { onprogress: (p: { message?: string }) => notices.push(p.message ?? '') },
    );
    expect(valueOf(result).normalized_result.total).toBe(3);
    const waiting = notices.filter((m) => /still waiting/.test(m));
    expect(waiting.length).toBeGreaterThanOrEqual(2);
    const elapsed = waiting.map((m) => Number(/\((\d+)s elapsed\)/.exec(m)![1]));
    expect(elapsed).toEqual([...elapsed].sort((a, b) => a - b));
    // Once startup has settled no waiting notice follows: the next query on the started engine sends
    // none. (The terminal notice of the first call is not checked: the client may drop a progress
    // notification that arrives in the same read as the response it precedes.)
    const later: string[] = [];
    await call('list_procedures', {}, { onprogress: (p: { message?: string }) => later.push(p.message ?? '') });
    expect(later.filter((m) => /still waiting/.test(m))).toEqual([]);
  }, 120_000);

  it('offers the pseudocode continuation when analyze_function does not fit one response', async () => {
    // About 6 MB of pseudocode, carried in both the text and the structured content: more than the
    // 10 MiB response budget.
    scenario({ mode: 'normal', pseudocodeRepeat: 500_000 });
    await reopen();
    const oversized = diagnosticOf(await call('analyze_function', { procedure: 'main' }));
    expect(oversized['code']).toBe('resource_constraint');
    const continuation = oversized['details'].reported_limits.continuation;
    expect(continuation).toMatchObject({ name: 'inspect_analysis_view', arguments: { collection: 'pseudocode' } });
    const first = valueOf(await call(continuation.name, continuation.arguments));
    expect(JSON.stringify(first.normalized_result)).toContain('int main(void)');
    expect(first.normalized_result.coverage.next_offset).toBeGreaterThan(0);
  });

  it('leaves no owned process or directory after the final close', async () => {
    // While the binary is open, the engine's project directory is there.
    expect(ownedDirs()).toHaveLength(1);
    valueOf(await call('close_binary'));
    expect(standinProcesses(space.dir)).toEqual([]);
    expect(ownedDirs()).toEqual([]);
  });
});

describe('Ghidra startup deadline over MCP (issue 21)', () => {
  const space = standinWorkspace('ghidra-deadline');
  afterAll(() => space.dispose());

  it('reports provider_timeout naming REA_GHIDRA_STARTUP_TIMEOUT_MS when the engine hangs', async () => {
    const env = createStandinGhidra(space.dir, { mode: 'hang' });
    const client = await connect({ ...env, REA_GHIDRA_STARTUP_TIMEOUT_MS: '2000' }, space.dir);
    try {
      const open = (await client.callTool({
        name: 'open_binary',
        arguments: { path: space.target.path, provider_id: 'ghidra' },
      })) as Result;
      valueOf(open);
      const timeout = diagnosticOf((await client.callTool({ name: 'binary_overview', arguments: {} })) as Result);
      expect(timeout).toMatchObject({
        code: 'provider_timeout',
        details: { provider_id: 'ghidra', deadline_ms: 2000, phase: 'startup' },
      });
      expect(timeout['remediation']).toContain('REA_GHIDRA_STARTUP_TIMEOUT_MS');
      expect(standinProcesses(space.dir)).toEqual([]);
      expect(ownedDirs()).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('refuses an invalid REA_GHIDRA_STARTUP_TIMEOUT_MS at startup', async () => {
    await expect(connect({ REA_GHIDRA_STARTUP_TIMEOUT_MS: '0' }, space.dir)).rejects.toThrow();
  });
});
