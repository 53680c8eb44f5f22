// Waiting notices while a stand-in Ghidra never finishes starting, on a fake clock: one every 10 s
// with the elapsed time, none after the caller cancels; the cancelled startup leaves nothing owned.
import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { existsSync } from 'node:fs';
import { createStandinGhidra, standinProcesses, bridgeOpenOptions, standinWorkspace } from '@rea/test-helpers';
import { createGhidraProvider } from '@rea/provider-ghidra';
import { isNativePort } from '@rea/native';

describe('Ghidra startup waiting notices (issue 21)', () => {
  const space = standinWorkspace('ghidra-notices');
  afterAll(() => space.dispose());

  it('reports the elapsed wait every 10 s until the caller cancels, then stops and cleans up', async () => {
    const env = createStandinGhidra(space.dir, { mode: 'hang' });
    const { options, supervisor } = bridgeOpenOptions(env);
    const session = await createGhidraProvider({ env }).open(space.target, options);
    const port = session.session;
    if (!isNativePort(port)) throw new Error('not a native port');
    const messages: string[] = [];
    const controller = new AbortController();
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const pending = port.prepare!({
        signal: controller.signal,
        progress: { report: (message) => void messages.push(message) },
      });
      pending.catch(() => undefined);
      // The engine process is started for real; wait for it without the (fake) clock.
      while (supervisor.processes().length === 0) await new Promise((resolve) => setImmediate(resolve));
      jest.advanceTimersByTime(35_000);
      expect(messages).toEqual([
        'starting Ghidra: import, auto-analysis, then the bridge',
        'still waiting (10s elapsed)',
        'still waiting (20s elapsed)',
        'still waiting (30s elapsed)',
      ]);
      controller.abort();
      jest.advanceTimersByTime(30_000);
      expect(messages).toHaveLength(4);
      jest.useRealTimers();
      await expect(pending).rejects.toMatchObject({ code: 'cancelled', details: { phase: 'startup' } });
    } finally {
      jest.useRealTimers();
    }
    const dir = supervisor.owned().find((o) => o.kind === 'temp-directories')?.id;
    expect(dir === undefined || !existsSync(dir)).toBe(true);
    expect(standinProcesses(space.dir)).toEqual([]);
    await session.close(new AbortController().signal);
    expect(supervisor.owned()).toEqual([]);
    await supervisor.closeAll();
  });
});
