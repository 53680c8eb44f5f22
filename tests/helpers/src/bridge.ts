/** Fixtures for the external-engine bridge tests: a small target file and the options `open` needs. */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProcessSupervisor, createProgressReporter, readConfig } from '@rea/provider-kit';
import type { ActiveTarget, ProcessSupervisor, ProgressNotification } from '@rea/provider-kit';

/** A temporary directory (`rea-…`) holding a small target file; removed by `dispose`. */
export function standinWorkspace(prefix: string): { dir: string; target: ActiveTarget; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), `rea-standin-${prefix}-`));
  const path = join(dir, 'target.bin');
  // An ELF header followed by code-like bytes: the stand-in engine does not parse it, only hashes it.
  const bytes = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), Buffer.alloc(249, 0x90)]);
  writeFileSync(path, bytes);
  const target: ActiveTarget = {
    path,
    format: 'elf',
    sha256: createHash('sha256').update(readFileSync(path)).digest('hex'),
    size: bytes.length,
  };
  return { dir, target, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What `open` needs, with a fresh supervisor, a recording progress sink and the config from `env`. */
export function bridgeOpenOptions(env: NodeJS.ProcessEnv = {}, signal = new AbortController().signal) {
  const supervisor: ProcessSupervisor = createProcessSupervisor();
  const notices: ProgressNotification[] = [];
  const progress = createProgressReporter({ send: (n) => void notices.push(n), intervalMs: 0 });
  return {
    options: { signal, supervisor, runId: 'run_test', progress, config: readConfig(env) },
    supervisor,
    notices,
    progress,
  };
}
