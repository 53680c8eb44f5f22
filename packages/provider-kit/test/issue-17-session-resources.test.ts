import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { isReaError } from '@rea/evidence';
import { createSessionResources } from '@rea/provider-kit';
import type { ProcessSupervisor } from '@rea/provider-kit';
import { processAlive } from '@rea/test-helpers';

/** A value that owns one real process and one temp directory, as a provider's kept browser would. */
interface Held {
  pid: number;
  dir: string;
}

let made = 0;
async function hold(supervisor: ProcessSupervisor): Promise<{ value: Held }> {
  made += 1;
  const dir = await supervisor.createTempDir('session-test');
  const process = await supervisor.start('sleep', ['300']);
  return { value: { pid: process.identity.pid, dir } };
}

const gone = (held: Held) => !processAlive(held.pid) && !existsSync(held.dir);
const leftovers: Array<() => Promise<unknown>> = [];
afterAll(() => Promise.all(leftovers.map((close) => close())));

describe('session resources kept for later calls', () => {
  it('should make a value once, share it with concurrent and later calls, and end it with the session', async () => {
    const resources = createSessionResources();
    leftovers.push(() => resources.closeAll());
    const before = made;
    const signal = new AbortController().signal;
    const [first, second] = await Promise.all([
      resources.obtain('k', hold, signal),
      resources.obtain('k', hold, signal),
    ]);
    const third = await resources.obtain('k', hold, signal);
    expect(made - before).toBe(1);
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(processAlive(first.pid)).toBe(true);
    expect(resources.lineage().map((o) => (o.status === 'unavailable' ? null : o.launcher.pid))).toEqual([first.pid]);

    expect(await resources.closeAll()).toEqual([]);
    expect(gone(first)).toBe(true);
    const refused = await resources.obtain('k', hold, signal).catch((error: unknown) => error);
    expect(isReaError(refused) && refused.code === 'cancelled' && refused.details['reason']).toBe('session-closed');
  });

  it('should end a released value, and only the one named when a value is given', async () => {
    const resources = createSessionResources();
    leftovers.push(() => resources.closeAll());
    const signal = new AbortController().signal;
    const first = await resources.obtain('k', hold, signal);
    await resources.release('k');
    expect(gone(first)).toBe(true);
    const second = await resources.obtain('k', hold, signal);
    expect(second).not.toBe(first);
    await resources.release('k', first);
    expect(processAlive(second.pid)).toBe(true);
    await resources.release('k', second);
    expect(gone(second)).toBe(true);
  });

  it('should keep nothing from a cancelled creation, and let a call that was waiting create the value', async () => {
    const resources = createSessionResources();
    leftovers.push(() => resources.closeAll());
    const creator = new AbortController();
    let started: Held | null = null;
    const slow = async (supervisor: ProcessSupervisor, signal: AbortSignal) => {
      const { value } = await hold(supervisor);
      started = value;
      creator.abort();
      // Like any creation, it honours its signal (aborted by now): it fails without making the value.
      if (signal.aborted) throw signal.reason;
      return { value };
    };
    const cancelled = resources.obtain('k', slow, creator.signal).catch((error: unknown) => error);
    const waiting = resources.obtain('k', hold, new AbortController().signal);
    await cancelled;
    // The creating call answers only once what it started is gone.
    expect(started !== null && gone(started)).toBe(true);
    const value = await waiting;
    expect(processAlive(value.pid)).toBe(true);
    expect(await resources.closeAll()).toEqual([]);
    expect(gone(value)).toBe(true);
  });
});
