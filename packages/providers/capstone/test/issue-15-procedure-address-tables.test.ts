/*
 * procedure_address answers from the procedure tables: it computes no control flow, callers or callees
 * (a large procedure's flow is the costliest query an open binary answers), and analyze_function
 * computes the flow of the procedure it analyses only, not of each procedure it calls (it asks only
 * whether a callee is an import stub). Seen by counting the control-flow computations of real tool
 * calls on a compiled program, whose addresses are checked against nm.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isReaError } from '@rea/evidence';
import { createNativeTools } from '@rea/native';
import { executeTool } from '@rea/provider-kit';
import { compileFixture } from '@rea/test-helpers';
import { ProcedureGraph } from '../src/analysis/graph.js';
import type { ProcedureRecord } from '../src/analysis/discovery.js';
import { openWithCapstone, removeTempDirs, tempDir, toolContext } from './support.js';

/** main calls twenty functions with branches of their own and one import (puts, through the PLT). */
function source(): string {
  const lines = ['#include <stdio.h>', 'int sink;'];
  for (let i = 0; i < 20; i += 1)
    lines.push(
      `__attribute__((noipa)) int f${i}(int x) { for (int k = 0; k < x; k += 1) { if (k & 1) sink += k; else sink -= ${i}; } return sink; }`,
    );
  const calls = Array.from({ length: 20 }, (_, i) => `f${i}(argc + ${i})`).join(' + ');
  lines.push('int main(int argc, char **argv) { puts(argv[0]); return ' + calls + '; }');
  const path = join(tempDir(), 'procedure-address.c');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

type Opened = Awaited<ReturnType<typeof openWithCapstone>>;

describe('issue 15: procedure_address and analyze_function compute only the control flow they answer', () => {
  let file: string;
  let opened: Opened;
  /** Entry addresses of the program's functions, from nm. */
  const nm = new Map<string, string>();

  beforeAll(async () => {
    file = compileFixture({ source: source(), compiler: 'gcc', args: ['-O1'], output: 'procedure-address' });
    for (const line of execFileSync('nm', ['--defined-only', file], { encoding: 'utf8' }).split('\n')) {
      const m = /^([0-9a-f]+) [Tt] (\S+)$/.exec(line);
      if (m) nm.set(m[2]!, `0x${Number.parseInt(m[1]!, 16).toString(16)}`);
    }
    opened = await openWithCapstone(file);
  }, 120_000);
  afterEach(() => {
    jest.restoreAllMocks();
  });
  afterAll(async () => {
    await opened.session.close(new AbortController().signal);
    removeTempDirs();
  });

  /** Runs a native tool on the open program, recording the procedures whose control flow is asked for. */
  async function call(tool: string, input: Record<string, unknown>) {
    const flows: number[] = [];
    const controlFlow = ProcedureGraph.prototype.controlFlow;
    jest.spyOn(ProcedureGraph.prototype, 'controlFlow').mockImplementation(function (
      this: ProcedureGraph,
      p: ProcedureRecord,
      ...rest
    ) {
      flows.push(p.start);
      return controlFlow.call(this, p, ...rest);
    });
    const contract = createNativeTools().find((t) => t.name === tool)!;
    const outcome = await executeTool(contract, input, toolContext(opened).context).then(
      (o) => (o.kind === 'evidence' ? (o.record.normalized_result as Record<string, unknown>) : o),
      (error: unknown) => error,
    );
    return { outcome, flows: flows.map((a) => `0x${a.toString(16)}`) };
  }

  it('should answer procedure_address from the procedure tables', async () => {
    expect(nm.get('main')).toBeDefined();
    for (const name of ['main', 'f7']) {
      const { outcome, flows } = await call('procedure_address', { name });
      expect(outcome).toEqual({ name, address: nm.get(name) });
      expect(flows).toEqual([]);
    }
    // A name that is not a procedure's (a variable's) is still refused.
    const variable = await call('procedure_address', { name: 'sink' });
    expect(isReaError(variable.outcome) && variable.outcome.code).toBe('not_found');
    expect(variable.flows).toEqual([]);
  }, 60_000);

  it("should compute only the analysed procedure's control flow in analyze_function", async () => {
    const { outcome, flows } = await call('analyze_function', { procedure: 'main' });
    const dossier = outcome as {
      callees: Array<{ procedure: string }>;
      api: { imports: Array<{ name: string }> };
      basic_blocks: unknown[];
    };
    // Every f<i> is called, and puts is recognised as an import through its stub.
    const callees = new Set(dossier.callees.map((c) => c.procedure));
    for (let i = 0; i < 20; i += 1) expect(callees).toContain(nm.get(`f${i}`));
    expect(dossier.api.imports.map((a) => a.name)).toContain('puts');
    expect(dossier.basic_blocks.length).toBeGreaterThan(0);
    expect(flows.length).toBeGreaterThan(0);
    expect(new Set(flows)).toEqual(new Set([nm.get('main')]));
  }, 60_000);
});
