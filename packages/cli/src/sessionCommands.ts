import { resolve } from 'node:path';
import { ReaError } from '@rea/evidence';
import type { AnyToolContract } from '@rea/provider-kit';
import { formatResult } from './format.js';
import type { OutputFormat } from './format.js';
import type { Invocation } from './invocation.js';
import { openTarget } from './target.js';

/** How `open-binary` and `close-binary` were invoked on the command line. */
export interface SessionCommandOptions {
  format: OutputFormat;
  quiet: boolean;
  /** `--provider`, the common spelling of `provider_id`. */
  provider: string | undefined;
  /** `--target`, the common spelling of `path`. */
  target: string | undefined;
}

function invalid(contract: AnyToolContract, input: unknown): never {
  const parsed = contract.input.safeParse(input);
  const issues = parsed.success
    ? []
    : (parsed.error.issues as Array<{ path: PropertyKey[]; message: string }>).map((issue) => ({
        path: issue.path.map(String).join('.') || '(root)',
        message: issue.message,
      }));
  throw new ReaError(
    'invalid_request',
    `Invalid input for ${contract.name}: ${issues[0]?.path}: ${issues[0]?.message}.`,
    {
      operation: contract.name,
      details: { issues },
      remediation: `Run rea ${contract.name.replace(/_/g, '-')} --help for the accepted arguments.`,
    },
  );
}

function pick(what: string, a: string | undefined, b: string | undefined): string | undefined {
  if (a !== undefined && b !== undefined && a !== b) {
    throw new ReaError('invalid_request', `${what} was given twice with different values.`, {
      details: { issues: [{ path: what, message: 'given twice' }] },
    });
  }
  return a ?? b;
}

/**
 * `open_binary` and `close_binary` on the command line, where an invocation is one session:
 * open-binary opens the target through the same selection as every target command (`--provider`,
 * else REA_ANALYSIS_PROVIDER, else auto), reports the target, the binding and the run in the
 * contract's result shape, and closes it; close-binary reports that nothing is open.
 */
export async function runSessionCommand(
  invocation: Invocation,
  contract: AnyToolContract,
  given: Record<string, unknown>,
  options: SessionCommandOptions,
): Promise<void> {
  let value: unknown;
  if (contract.name === 'close_binary') {
    if (!contract.input.safeParse(given).success) invalid(contract, given);
    value = { closed_target: null, closed_provider: null, cleared_records: 0, drained_calls: 0 };
  } else {
    const input = { ...given };
    const path = pick('path', input['path'] as string | undefined, options.target);
    const provider = pick('provider_id', input['provider_id'] as string | undefined, options.provider);
    if (path !== undefined) input['path'] = path;
    if (provider !== undefined) input['provider_id'] = provider;
    if (!contract.input.safeParse(input).success) invalid(contract, input);
    const progress = invocation.toolContext(options.quiet).progress;
    const startedAt = new Date().toISOString();
    try {
      const opened = await openTarget({
        path: resolve(invocation.io.cwd, path!),
        provider,
        providers: await invocation.host.loadProviders(),
        env: invocation.io.env,
        signal: invocation.scope.signal,
        progress,
      });
      try {
        const { target, binding, run_id: runId } = opened.view;
        value = {
          reused: false,
          target: { path: target!.path, format: target!.format, sha256: target!.sha256, size: target!.size },
          analysis_provider_binding: {
            provider: binding!.provider,
            selection_source: binding!.selection_source,
            analysis_profile: binding!.analysis_profile,
          },
          analysis_run: { run_id: runId!, started_at: startedAt },
        };
      } finally {
        await opened.close();
      }
    } finally {
      progress.clear();
    }
  }
  const result = contract.result.parse(value) as unknown;
  await invocation.out(
    options.format === 'json' ? `${JSON.stringify(result, null, 2)}\n` : formatResult(contract.name, result),
  );
}
