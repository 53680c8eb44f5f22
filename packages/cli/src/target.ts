import { randomUUID } from 'node:crypto';
import { throwIfAborted } from '@rea/evidence';
import {
  NATIVE_PORT,
  createProcessSupervisor,
  createProviderBinding,
  createProviderRegistry,
  parseProviderChoice,
  probeProviders,
  providerSettings,
  readActiveTarget,
  readConfig,
  selectProvider,
} from '@rea/provider-kit';
import type { DeepSession, ProgressSink, Provider, SessionView } from '@rea/provider-kit';

/** An opened target: the session view tools receive, and the cleanup that must run afterwards. */
export interface OpenedTarget {
  view: SessionView;
  /** Closes the provider session, then every owned process, directory and socket. */
  close(): Promise<void>;
}

/**
 * Opens `path` for one invocation as `open_binary` would: a run id first, then the provider chosen by
 * `--provider`, else REA_ANALYSIS_PROVIDER, else `auto` (the shared parser and policy of
 * @rea/provider-kit), started under an owned-process supervisor with the invocation's signal.
 */
export async function openTarget(options: {
  path: string;
  provider: string | undefined;
  providers: readonly Provider[];
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
  progress: ProgressSink;
}): Promise<OpenedTarget> {
  const { signal, progress } = options;
  const config = readConfig(options.env as NodeJS.ProcessEnv, providerSettings(options.providers));
  const choice =
    options.provider !== undefined ? parseProviderChoice(options.provider, 'argument') : config.analysisProvider;
  const source = options.provider !== undefined || config.analysisProvider === null ? 'argument' : 'environment';
  const target = await readActiveTarget(options.path, signal);
  const runId = `run_${randomUUID()}`;
  const registry = createProviderRegistry(options.providers);
  progress.report(`run ${runId}: probing providers`);
  const probes = await probeProviders(registry, { signal });
  const selection = selectProvider({
    registry,
    choice,
    source,
    target: { format: target.format },
    probes,
    port: NATIVE_PORT,
  });
  const provider = selection.provider;
  const supervisor = createProcessSupervisor();
  progress.report(`starting ${provider.id}`);
  let deep: DeepSession;
  try {
    deep = await provider.open(target, { signal, supervisor, runId, progress, config });
  } catch (error) {
    await supervisor.closeAll().catch(() => undefined);
    throw error;
  }
  const close = async (): Promise<void> => {
    try {
      // Cleanup runs to completion even after cancellation: it gets a signal of its own.
      await deep.close(new AbortController().signal);
    } finally {
      await supervisor.closeAll();
    }
  };
  try {
    const binding = createProviderBinding(provider, deep, selection.source, registry);
    throwIfAborted(signal, 'startup');
    return { view: { target, binding, run_id: runId }, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
