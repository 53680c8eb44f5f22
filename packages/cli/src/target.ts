import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ReaError, isReaError, throwIfAborted } from '@rea/evidence';
import {
  createProcessSupervisor,
  createProviderBinding,
  createProviderRegistry,
  parseProviderChoice,
  probeProviders,
  readConfig,
  selectProvider,
} from '@rea/provider-kit';
import type { ActiveTarget, DeepSession, ProgressSink, Provider, SessionView } from '@rea/provider-kit';

const MAGIC: ReadonlyArray<[string, number[]]> = [
  ['elf', [0x7f, 0x45, 0x4c, 0x46]],
  ['pe', [0x4d, 0x5a]],
  ['mach-o', [0xfe, 0xed, 0xfa, 0xce]],
  ['mach-o', [0xfe, 0xed, 0xfa, 0xcf]],
  ['mach-o', [0xce, 0xfa, 0xed, 0xfe]],
  ['mach-o', [0xcf, 0xfa, 0xed, 0xfe]],
  ['mach-o-universal', [0xca, 0xfe, 0xba, 0xbe]],
  ['zip', [0x50, 0x4b, 0x03, 0x04]],
  ['dex', [0x64, 0x65, 0x78, 0x0a]],
  ['wasm', [0x00, 0x61, 0x73, 0x6d]],
];

function unreadable(path: string, error: unknown): ReaError {
  const code = (error as { code?: string }).code ?? 'unreadable';
  return new ReaError(code === 'ENOENT' ? 'not_found' : 'target_unavailable', `Cannot read ${path} (${code}).`, {
    details: { path, reason: code === 'ENOENT' ? 'missing' : code },
  });
}

/** The identity of a target file (the same facts `open_binary` records): path, coarse format, SHA-256, size. */
export async function readActiveTarget(path: string, signal: AbortSignal): Promise<ActiveTarget> {
  const absolute = resolve(path);
  let size: number;
  try {
    const info = await stat(absolute);
    if (!info.isFile()) {
      throw new ReaError('target_unavailable', `${absolute} is not a regular file.`, {
        details: { path: absolute, reason: 'not-a-regular-file' },
      });
    }
    size = info.size;
  } catch (error) {
    throw isReaError(error) ? error : unreadable(absolute, error);
  }
  const head = new Uint8Array(8);
  try {
    const handle = await open(absolute, 'r');
    try {
      await handle.read(head, 0, 8, 0);
    } finally {
      await handle.close();
    }
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(absolute, { signal })) hash.update(chunk as Buffer);
    const format = MAGIC.find(([, bytes]) => bytes.every((b, i) => head[i] === b))?.[0] ?? 'unknown';
    return { path: absolute, format, sha256: hash.digest('hex'), size };
  } catch (error) {
    throwIfAborted(signal, 'hashing');
    throw unreadable(absolute, error);
  }
}

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
  const config = readConfig(options.env as NodeJS.ProcessEnv);
  const choice =
    options.provider !== undefined ? parseProviderChoice(options.provider, 'argument') : config.analysisProvider;
  const source = options.provider !== undefined || config.analysisProvider === null ? 'argument' : 'environment';
  const target = await readActiveTarget(options.path, signal);
  const runId = `run_${randomUUID()}`;
  const registry = createProviderRegistry(options.providers);
  progress.report(`run ${runId}: probing providers`);
  const probes = await probeProviders(registry, { signal });
  const selection = selectProvider({ registry, choice, source, target: { format: target.format }, probes });
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
    const binding = createProviderBinding(provider, deep, selection.source);
    throwIfAborted(signal, 'startup');
    return { view: { target, binding, run_id: runId }, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
