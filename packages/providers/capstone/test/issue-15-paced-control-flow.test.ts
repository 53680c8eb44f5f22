/*
 * The control flow of a procedure (basic blocks, edges, unresolved transfers) and its callees are
 * computed in slices with turns of the event loop between them, as listings and disassembly are: a
 * huge procedure's graph does not hold the event loop, and a cancel seen at a turn ends the query as
 * `cancelled` naming it — through a real tool call, with nothing retained. A pacer whose slice is 0 ms
 * turns at every checkpoint; the answers must be those of queries never interrupted. The port is
 * internal, so it is built from the package source, each time over a new graph (a graph keeps the
 * control flow it computed).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBinaryLayout } from '@rea/artifact';
import type { BinaryLayout } from '@rea/artifact';
import { isReaError } from '@rea/evidence';
import { createNativeTools } from '@rea/native';
import type { NativePort } from '@rea/native';
import { executeTool } from '@rea/provider-kit';
import { compileFixture, turnProbe } from '@rea/test-helpers';
import { decoderSource } from '../src/engine.js';
import type { DecoderSource, EngineArchitecture } from '../src/engine.js';
import { discover } from '../src/analysis/discovery.js';
import type { Discovery } from '../src/analysis/discovery.js';
import { ProcedureGraph } from '../src/analysis/graph.js';
import { Pacer } from '../src/analysis/pace.js';
import { findStrings } from '../src/analysis/strings.js';
import type { StringTable } from '../src/analysis/strings.js';
import { collectNames } from '../src/names.js';
import type { NameIndex } from '../src/names.js';
import { CapstonePort } from '../src/port.js';
import { openWithCapstone, removeTempDirs, tempDir, toolContext } from './support.js';

/** A pacer that records the query of every turn and, when asked, cancels at that query's second turn. */
class RecordingPacer extends Pacer {
  constructor(
    private readonly controller: AbortController,
    private readonly phases: string[],
    private readonly cancelAt: string | null,
  ) {
    super(controller.signal, 0);
  }
  override async turn(phase: string): Promise<void> {
    this.phases.push(phase);
    if (phase === this.cancelAt && this.phases.filter((p) => p === phase).length === 2) this.controller.abort();
    await super.turn(phase);
  }
}

/** One procedure of about ten thousand instructions, with branches, calls and a switch, and its callees. */
function source(): string {
  const lines = ['int sink;', 'int side(int x) { sink += x; return x; }'];
  const body = Array.from({ length: 2500 }, (_, i) =>
    i % 50 === 0
      ? `  if (v & ${i + 1}) v = side(v) + ${i}; else v -= ${i};`
      : `  v = v * ${i + 3} + (v >> ${(i % 13) + 1});`,
  );
  const cases = Array.from({ length: 12 }, (_, i) => `    case ${i}: v += ${i * 7}; break;`);
  lines.push(
    '__attribute__((noinline)) int huge(int x) {',
    '  volatile int v = x;',
    ...body,
    '  switch (v & 15) {',
    ...cases,
    '  }',
    '  return v;',
    '}',
  );
  lines.push('int main(void) { return huge(3); }');
  const path = join(tempDir(), 'paced-control-flow.c');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

type Opened = Awaited<ReturnType<typeof openWithCapstone>>;

describe('issue 15: the control flow of a huge procedure turns the event loop and stops at a cancel', () => {
  let file: string;
  let source_: DecoderSource;
  let opened: Opened;
  let analysed: { layout: BinaryLayout; discovery: Discovery; strings: StringTable; names: NameIndex };
  let huge: string;
  const paused = new Pacer(new AbortController().signal, Number.POSITIVE_INFINITY);
  /** A port over a graph of its own, so that no control flow is known before its first query. */
  const build = async (pacerFor?: (signal: AbortSignal) => Pacer): Promise<CapstonePort> => {
    const { layout, discovery, strings, names } = analysed;
    const graph = await ProcedureGraph.build(layout, discovery, paused);
    return new CapstonePort(layout, source_, discovery, strings, 'paced', graph, names, pacerFor);
  };

  beforeAll(async () => {
    file = compileFixture({ source: source(), compiler: 'gcc', args: ['-O1', '-fno-inline'], output: 'paced-flow' });
    const layout = parseBinaryLayout(readFileSync(file));
    source_ = decoderSource(layout.architecture as EngineArchitecture);
    const signal = new AbortController().signal;
    const discovery = await discover(layout, source_, signal, 'fast', paused);
    const { strings } = await findStrings(layout, signal, paused);
    const names = await collectNames(layout, discovery, paused);
    analysed = { layout, discovery, strings, names };
    opened = await openWithCapstone(file);
    huge = (await opened.port.addressOf('huge', signal))!;
  }, 180_000);
  afterAll(async () => {
    source_.close();
    await opened.session.close(new AbortController().signal);
    removeTempDirs();
  });

  /** What a client asks about the huge procedure, each on a port that has not computed it yet. */
  async function queries(port: () => Promise<NativePort>, signal: AbortSignal) {
    return {
      flow: await (await port()).controlFlow(huge, signal),
      callees: await (await port()).callees(huge, signal),
      procedure: await (await port()).procedure(huge, signal),
    };
  }

  it('should turn the event loop while the graph is computed and answer as an uninterrupted query does', async () => {
    const signal = new AbortController().signal;
    const reference = await queries(() => build(), signal);
    expect(reference.procedure?.instruction_count).toBeGreaterThan(8000);
    expect(reference.flow.blocks.length).toBeGreaterThan(50);
    expect(reference.flow.edges.some((e) => e.kind === 'conditional')).toBe(true);
    expect(reference.callees.calls.some((c) => c.name === 'side')).toBe(true);
    const phases: string[] = [];
    const probe = turnProbe();
    let paced: Awaited<ReturnType<typeof queries>>;
    try {
      paced = await queries(() => build(() => new RecordingPacer(new AbortController(), phases, null)), signal);
    } finally {
      probe.stop();
    }
    // Several turns per query over thousands of instructions: the work is sliced, not merely preceded by a turn.
    for (const phase of ['control-flow', 'callees', 'procedure'])
      expect(phases.filter((p) => p === phase).length).toBeGreaterThan(2);
    expect(probe.turns()).toBeGreaterThanOrEqual(phases.length);
    expect(paced).toEqual(reference);
    // The answers are those of the provider's own port, opened as a client opens it.
    expect(reference.flow).toEqual(await opened.port.controlFlow(huge, signal));
  }, 120_000);

  it.each([
    ['procedure_callees', 'procedure'],
    ['analyze_function', 'procedure'],
  ])(
    'should end %s as cancelled mid-%s with nothing retained',
    async (tool, phase) => {
      const controller = new AbortController();
      const phases: string[] = [];
      const port = await build((signal) => {
        expect(signal).toBe(controller.signal);
        return new RecordingPacer(controller, phases, phase);
      });
      const ctx = toolContext({ ...opened, session: { ...opened.session, session: port } }, controller.signal);
      const retained: unknown[] = [];
      const ledger = ctx.context.ledger!;
      const retain = ledger.retain.bind(ledger);
      ledger.retain = (record) => (retained.push(record), retain(record));
      const contract = createNativeTools().find((t) => t.name === tool)!;
      const outcome = await executeTool(contract, { procedure: huge }, ctx.context).then(
        () => null,
        (error: unknown) => error,
      );
      expect(isReaError(outcome) && outcome.code).toBe('cancelled');
      expect(isReaError(outcome) && outcome.details).toMatchObject({ phase });
      expect(phases.filter((p) => p === phase)).toHaveLength(2);
      expect(phases.at(-1)).toBe(phase);
      expect(retained).toEqual([]);
    },
    120_000,
  );

  it('should end a control-flow query as cancelled at its second turn, keeping nothing half-computed', async () => {
    let controller = new AbortController();
    let cancelAt: string | null = 'control-flow';
    const phases: string[] = [];
    const port = await build(() => new RecordingPacer(controller, phases, cancelAt));
    await expect(port.controlFlow(huge, controller.signal)).rejects.toMatchObject({
      code: 'cancelled',
      details: { phase: 'control-flow' },
    });
    expect(phases).toEqual(['control-flow', 'control-flow']);
    // The same graph computes the whole control flow afterwards.
    controller = new AbortController();
    cancelAt = null;
    const again = await port.controlFlow(huge, controller.signal);
    expect(again).toEqual(await opened.port.controlFlow(huge, controller.signal));
    expect(phases.length).toBeGreaterThan(4);
  }, 120_000);
});
