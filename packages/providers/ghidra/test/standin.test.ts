import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { createStandinGhidra, bridgeOpenOptions, standinWorkspace } from '@rea/test-helpers';
import { createGhidraProvider } from '@rea/provider-ghidra';

describe('Ghidra provider with the stand-in engine', () => {
  const space = standinWorkspace('ghidra-standin');
  afterAll(() => space.dispose());

  it('starts the stand-in on the first query, answers through the bridge and leaves nothing on close', async () => {
    const env = createStandinGhidra(space.dir, { mode: 'normal' });
    const provider = createGhidraProvider({ env });
    expect(await provider.probe()).toMatchObject({ status: 'ready', version: '11.3.1' });
    const { options, supervisor } = bridgeOpenOptions(env);
    const session = await provider.open(space.target, options);
    expect(supervisor.processes()).toHaveLength(0);
    const signal = new AbortController().signal;
    const page = await session.session.procedures({ offset: 0, limit: 10 }, signal);
    expect(page.items.map((p) => p.name)).toEqual(['_start', 'main', 'helper']);
    const owned = supervisor.owned();
    expect(owned.map((o) => o.kind).sort()).toEqual(['processes', 'sockets', 'temp-directories']);
    const dir = owned.find((o) => o.kind === 'temp-directories')!.id;
    expect(dir).toMatch(/rea-ghidra-/);
    await session.close(signal);
    expect(existsSync(dir)).toBe(false);
    expect(supervisor.owned()).toEqual([]);
    await supervisor.closeAll();
  });

  it('starts one engine for queries that arrive while it is starting', async () => {
    const env = createStandinGhidra(space.dir, { mode: 'slow', delayMs: 1000 });
    const { options, supervisor } = bridgeOpenOptions(env);
    const session = await createGhidraProvider({ env }).open(space.target, options);
    const signal = new AbortController().signal;
    const [procedures, segments, name] = await Promise.all([
      session.session.procedures({ offset: 0, limit: 10 }, signal),
      session.session.segments(signal),
      session.session.nameAt('0x401030', signal),
    ]);
    expect([procedures.total, segments.length, name]).toEqual([3, 2, 'helper']);
    expect(supervisor.processes()).toHaveLength(1);
    await session.close(signal);
    expect(supervisor.owned()).toEqual([]);
    await supervisor.closeAll();
  });
});
