import { isReaError } from '@rea/evidence';
import type { ReaError } from '@rea/evidence';
import { executeTool } from '@rea/provider-kit';
import type { AnyToolContract, ToolContext } from '@rea/provider-kit';
import { compileFixture, quietToolContext } from '@rea/test-helpers';
import { lldbTools } from '@rea/provider-lldb';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Compiles one fixture of test/fixtures with gcc (cached by content). */
export function fixture(name: string, args: readonly string[] = ['-O1', '-g']): string {
  const source = fileURLToPath(new URL(`./fixtures/${name}.c`, import.meta.url));
  return compileFixture({
    source,
    compiler: 'gcc',
    args: [...args, '-pthread'],
    output: `${name}${args.includes('-s') ? '-stripped' : ''}`,
  });
}

/** Runs a tool and returns the normalized result of its Evidence. */
export async function run<T>(tool: AnyToolContract, input: unknown, context?: Partial<ToolContext>): Promise<T> {
  const outcome = await executeTool(tool, input, quietToolContext(context));
  if (outcome.kind !== 'evidence') throw new Error('expected Evidence');
  return outcome.record.normalized_result as T;
}

/** Runs a tool expecting a typed failure, and returns it. */
export async function failure(
  tool: AnyToolContract,
  input: unknown,
  context?: Partial<ToolContext>,
): Promise<ReaError> {
  const error = await executeTool(tool, input, quietToolContext(context)).then(
    () => null,
    (e: unknown) => e,
  );
  if (!isReaError(error)) throw new Error(`expected a ReaError, got ${String(error)}`);
  return error;
}

/** The observe_native_calls tool, as the provider lists it. */
export const observe = lldbTools.find((tool) => tool.name === 'observe_native_calls')!;

/** The capture_process_scenario tool, as the provider lists it. */
export const capture = lldbTools.find((tool) => tool.name === 'capture_process_scenario')!;

/** Whether a process with this id is running: present and neither a zombie nor dead (unlike a probe by signal 0). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2)[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Resolves with the text of `path` once it exists (checked every 10 ms). */
export async function whenWritten(path: string): Promise<string> {
  for (;;) {
    if (existsSync(path)) return readFileSync(path, 'utf8');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
