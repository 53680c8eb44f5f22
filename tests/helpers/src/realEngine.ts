import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isReaError } from '@rea/evidence';
import { createProcessSupervisor, createProviderBinding, executeTool, readConfig } from '@rea/provider-kit';
import type { AnyToolContract, DeepProvider } from '@rea/provider-kit';
import { quietToolContext } from './processes.js';

/** What {@link runNativeToolsOnRealEngine} observed. */
export interface RealEngineRun {
  /** Procedure entry addresses the engine listed, as numbers. */
  procedures: Set<bigint>;
  /** Function symbols (`nm --defined-only`, text) of the target, as addresses. */
  symbols: Map<bigint, string>;
  /** Tool name → `ok` or the error code it answered. */
  outcomes: Map<string, string>;
}

/**
 * Opens `path` with a real external engine provider, runs every tool of `tools` on the example
 * inputs (procedure `main`, the address of `main`), and lists the engine's procedures next to the
 * target's function symbols from `nm`. Closes the session and its supervisor whatever happens.
 */
export async function runNativeToolsOnRealEngine(
  provider: DeepProvider,
  tools: readonly AnyToolContract[],
  path: string,
): Promise<RealEngineRun> {
  const bytes = readFileSync(path);
  const target = { path, format: 'elf', sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
  const supervisor = createProcessSupervisor();
  const signal = new AbortController().signal;
  const session = await provider.open(target, {
    signal,
    supervisor,
    runId: 'run_real_engine',
    progress: { report: () => undefined },
    config: readConfig(process.env),
  });
  const outcomes = new Map<string, string>();
  const procedures = new Set<bigint>();
  try {
    const binding = createProviderBinding(provider, session, 'argument');
    const context = () => quietToolContext({ session: { target, binding, run_id: 'run_real_engine' } });
    const listing = await executeTool(
      tools.find((t) => t.name === 'list_procedures')!,
      { limit: 1000 },
      context(),
    );
    const page = (listing as { record?: { normalized_result: { items: Array<{ address: string }> } } }).record;
    for (const item of page?.normalized_result.items ?? []) procedures.add(BigInt(item.address));
    const main = execFileSync('nm', ['--defined-only', path], { encoding: 'utf8' })
      .split('\n')
      .find((line) => / [Tt] main$/.test(line));
    const address = `0x${BigInt(`0x${main!.split(' ')[0]}`).toString(16)}`;
    let dossier: unknown = null;
    for (const tool of [...tools].sort(
      (a, b) => Number(a.name === 'compare_functions') - Number(b.name === 'compare_functions'),
    )) {
      const shape = Object.keys((tool.input as { shape?: object }).shape ?? {});
      const input: Record<string, unknown> = {};
      if (shape.includes('procedure')) input['procedure'] = 'main';
      if (shape.includes('address')) input['address'] = address;
      if (shape.includes('query')) input['query'] = 'main';
      if (shape.includes('name')) input['name'] = 'main';
      if (shape.includes('from')) Object.assign(input, { from: 'main', to: 'main' });
      if (shape.includes('left')) Object.assign(input, { left: dossier, right: dossier });
      try {
        const outcome = await executeTool(tool, input, context());
        if (tool.name === 'analyze_function' && outcome.kind === 'evidence') dossier = outcome.record;
        outcomes.set(tool.name, 'ok');
      } catch (error) {
        outcomes.set(tool.name, isReaError(error) ? error.code : String(error));
      }
    }
  } finally {
    await session.close(signal).catch(() => undefined);
    await supervisor.closeAll().catch(() => undefined);
  }
  const symbols = new Map<bigint, string>();
  for (const line of execFileSync('nm', ['--defined-only', path], { encoding: 'utf8' }).split('\n')) {
    const match = /^([0-9a-f]+) [Tt] (\S+)$/.exec(line);
    if (match) symbols.set(BigInt(`0x${match[1]}`), match[2]!);
  }
  return { procedures, symbols, outcomes };
}
