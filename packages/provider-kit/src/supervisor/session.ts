import { ReaError, isReaError, throwIfAborted } from '@rea/evidence';
import { CALL_GRACE_MS, createProcessSupervisor } from './supervisor.js';
import type { ProcessSupervisor } from './supervisor.js';
import type { LineageObservation, RemainingResources } from './ownedProcess.js';

/** A value a tools provider keeps for the rest of a session, and how it ends before its processes do. */
export interface SessionResource<T> {
  value: T;
  /** Runs before the resource's supervisor closes (e.g. asks a browser to close); failures are ignored. */
  close?(): Promise<void>;
}

/**
 * What a host keeps on behalf of tools providers for one session (an MCP connection): values later
 * calls reuse, such as a browser, each with its own owned-process supervisor that lives as long as
 * the value. The host ends every one of them when the session ends (the connection closes, the server
 * shuts down); an exiting host kills their process groups and removes their temp directories.
 */
export interface SessionResources {
  /**
   * The value kept under `key`. On first use `create` makes it with a fresh supervisor (start every
   * process and temp directory of the value through it) and the signal of the call that asked first;
   * calls asking meanwhile share that creation. A failed or cancelled creation keeps nothing: its
   * supervisor is closed before the creating call sees the error (a call that was only waiting for it
   * then creates the value itself).
   */
  obtain<T>(
    key: string,
    create: (supervisor: ProcessSupervisor, signal: AbortSignal) => Promise<SessionResource<T>>,
    signal: AbortSignal,
  ): Promise<T>;
  /**
   * Ends the value under `key` (its `close`, then its supervisor); a later `obtain` makes a new one.
   * With `value`, only while that is still the value kept (e.g. a browser found dead after another
   * has replaced it).
   */
  release(key: string, value?: unknown): Promise<void>;
  /** One ownership observation per process the kept values started, taken now. */
  lineage(): LineageObservation[];
}

/** The host's side of {@link SessionResources}: ending them all when the session ends. */
export interface SessionResourcesHost extends SessionResources {
  /** Ends every value; later `obtain` calls are refused. Resolves with what could not be released. */
  closeAll(): Promise<RemainingResources[]>;
}

interface Entry {
  supervisor: ProcessSupervisor;
  created: Promise<SessionResource<unknown>>;
  kept: SessionResource<unknown> | null;
  /** True once the creating call was cancelled (its creation then fails without making the value). */
  abandoned: boolean;
}

function sessionEnded(): ReaError {
  return new ReaError('cancelled', 'The session has ended; nothing more is kept for it.', {
    details: { reason: 'session-closed', phase: 'session-resource' },
  });
}

function waitOrAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new ReaError('cancelled', 'Cancelled while waiting for a session resource.'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Creates the session resources of one session; the host calls `closeAll` when the session ends. */
export function createSessionResources(): SessionResourcesHost {
  const entries = new Map<string, Entry>();
  const ending = new AbortController();

  const end = async (entry: Entry): Promise<void> => {
    const resource = await entry.created.catch(() => null);
    await resource?.close?.().catch(() => undefined);
    await entry.supervisor.closeAll();
  };

  const resources: SessionResourcesHost = {
    async obtain<T>(
      key: string,
      create: (supervisor: ProcessSupervisor, signal: AbortSignal) => Promise<SessionResource<T>>,
      signal: AbortSignal,
    ): Promise<T> {
      for (;;) {
        if (ending.signal.aborted) throw sessionEnded();
        throwIfAborted(signal, 'session resource');
        const kept = entries.get(key);
        if (kept) {
          try {
            return ((await waitOrAbort(kept.created, signal)) as SessionResource<T>).value;
          } catch (error) {
            // Another call's creation was cancelled: this call creates the value itself.
            if (!signal.aborted && kept.abandoned && !ending.signal.aborted) continue;
            throw error;
          }
        }
        const supervisor = createProcessSupervisor({ graceMs: CALL_GRACE_MS });
        const both = AbortSignal.any([signal, ending.signal]);
        const entry: Entry = {
          supervisor,
          kept: null,
          abandoned: false,
          created: Promise.resolve()
            .then(() => create(supervisor, both))
            .then((resource) => (entry.kept = resource))
            .catch(async (error: unknown) => {
              entry.abandoned = signal.aborted;
              if (entries.get(key) === entry) entries.delete(key);
              await supervisor.closeAll().catch(() => undefined);
              throw ending.signal.aborted ? sessionEnded() : error;
            }),
        };
        entries.set(key, entry);
        return ((await entry.created) as SessionResource<T>).value;
      }
    },
    async release(key, ...value: unknown[]) {
      const entry = entries.get(key);
      if (!entry || (value.length > 0 && entry.kept?.value !== value[0])) return;
      entries.delete(key);
      await end(entry);
    },
    lineage: () => [...entries.values()].flatMap((entry) => entry.supervisor.lineage()),
    async closeAll() {
      ending.abort();
      const all = [...entries.values()];
      entries.clear();
      const remaining: RemainingResources[] = [];
      for (const outcome of await Promise.allSettled(all.map(end))) {
        if (outcome.status === 'fulfilled') continue;
        const reason: unknown = outcome.reason;
        if (isReaError(reason) && reason.code === 'cleanup_incomplete')
          remaining.push(...((reason.details['remaining'] ?? []) as unknown as RemainingResources[]));
        else remaining.push({ kind: 'processes', identifiers: ['unknown'] });
      }
      return remaining;
    },
  };
  return resources;
}
