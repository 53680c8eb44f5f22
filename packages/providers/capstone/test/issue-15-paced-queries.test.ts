/*
 * Queries on an open binary do not hold the event loop: listing or searching procedures, names and
 * strings, and disassembling a procedure, work in slices with turns of the event loop between them
 * (through the port's pacer), and a cancel seen at a turn ends the query as `cancelled` naming it —
 * through a real tool call, with nothing retained. A pacer whose slice is 0 ms turns at every
 * checkpoint, so turns and cancel points are exercised deterministically; the answers must be those
 * of queries never interrupted. The port is internal, so it is built from the package source.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBinaryLayout } from '@rea/artifact';
import { isReaError } from '@rea/evidence';
import { createNativeTools } from '@rea/native';
import type { NativePort } from '@rea/native';
import { executeTool } from '@rea/provider-kit';
import { compileFixture, turnProbe } from '@rea/test-helpers';
import { decoderSource } from '../src/engine.js';
import type { DecoderSource, EngineArchitecture } from '../src/engine.js';
import { discover } from '../src/analysis/discovery.js';
import { ProcedureGraph } from '../src/analysis/graph.js';
import { Pacer } from '../src/analysis/pace.js';
import { findStrings } from '../src/analysis/strings.js';
import { collectNames } from '../src/names.js';
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

/** 600 small functions (each with its own string) and one function of well over a thousand instructions. */
function source(): string {
  const lines = ['int sink;', 'const char *said;'];
  for (let i = 0; i < 600; i += 1)
    lines.push(`__attribute__((noinline)) int f${i}(int x) { said = "text of f${i}"; sink += x; return x + ${i}; }`);
  const body = Array.from({ length: 500 }, (_, i) => `  v = v * ${i + 3} + (v >> ${(i % 13) + 1});`);
  lines.push('__attribute__((noinline)) int big(int x) {', '  volatile int v = x;', ...body, '  return v;', '}');
  lines.push('int main(void) { return f0(1) + f599(2) + big(3); }');
  const path = join(tempDir(), 'paced-queries.c');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

type Opened = Awaited<ReturnType<typeof openWithCapstone>>;

describe('issue 15: Capstone queries turn the event loop and stop at a cancel', () => {
  let file: string;
  let source_: DecoderSource;
  let opened: Opened;
  let build: (pacerFor?: (signal: AbortSignal) => Pacer) => CapstonePort;
  let bigAddress: string;

  beforeAll(async () => {
    file = compileFixture({ source: source(), compiler: 'gcc', args: ['-O1', '-fno-inline'], output: 'paced-queries' });
    const layout = parseBinaryLayout(readFileSync(file));
    source_ = decoderSource(layout.architecture as EngineArchitecture);
    const signal = new AbortController().signal;
    const pacer = new Pacer(signal, Number.POSITIVE_INFINITY);
    const discovery = await discover(layout, source_, signal, 'fast', pacer);
    const { strings } = await findStrings(layout, signal, pacer);
    const graph = await ProcedureGraph.build(layout, discovery, pacer);
    const names = await collectNames(layout, discovery, pacer);
    build = (pacerFor) => new CapstonePort(layout, source_, discovery, strings, 'paced', graph, names, pacerFor);
    opened = await openWithCapstone(file);
    bigAddress = (await opened.port.addressOf('big', signal))!;
  }, 180_000);
  afterAll(async () => {
    source_.close();
    await opened.session.close(new AbortController().signal);
    removeTempDirs();
  });

  /** The queries a client makes, as answered by `port`. */
  async function queries(port: NativePort, signal: AbortSignal) {
    return {
      all: await port.procedures({ offset: 0, limit: 100_000 }, signal),
      search: await port.procedures({ offset: 3, limit: 50, query: 'F5' }, signal),
      names: await port.names({ offset: 0, limit: 100_000, query: 'f1' }, signal),
      strings: await port.strings({ offset: 0, limit: 100_000, query: 'text of f2' }, signal),
      instructions: await port.instructions(bigAddress, { offset: 0, limit: 4000 }, signal),
    };
  }

  it('should turn the event loop in every query and answer as an uninterrupted query does', async () => {
    const signal = new AbortController().signal;
    const reference = await queries(build(), signal);
    expect(reference.all.total).toBeGreaterThan(600);
    expect(reference.search.items.length).toBeGreaterThan(0);
    expect(reference.strings.total).toBe(111);
    expect(reference.instructions.total).toBeGreaterThan(1000);
    expect(reference.instructions.items.every((i) => i.mnemonic !== '(bad)')).toBe(true);
    const phases: string[] = [];
    const probe = turnProbe();
    let paced: Awaited<ReturnType<typeof queries>>;
    try {
      paced = await queries(
        build(() => new RecordingPacer(new AbortController(), phases, null)),
        signal,
      );
    } finally {
      probe.stop();
    }
    expect(new Set(phases)).toEqual(new Set(['procedures', 'names', 'strings', 'instructions']));
    // Several turns per query on lists of hundreds: the work is sliced, not merely preceded by a turn.
    for (const phase of ['procedures', 'names', 'instructions'])
      expect(phases.filter((p) => p === phase).length).toBeGreaterThan(2);
    // Other work ran between the slices: at least one queued callback per turn taken.
    expect(probe.turns()).toBeGreaterThanOrEqual(phases.length);
    expect(paced).toEqual(reference);
  }, 120_000);

  it.each([
    ['procedure_assembly', 'instructions', () => ({ procedure: bigAddress })],
    ['list_procedures', 'procedures', () => ({ limit: 1000 })],
    ['search_procedures', 'procedures', () => ({ query: 'f', limit: 10 })],
    ['list_names', 'names', () => ({ query: 'f', limit: 10 })],
  ])(
    'should end %s as cancelled mid-%s with nothing retained',
    async (tool, phase, input) => {
      const controller = new AbortController();
      const phases: string[] = [];
      const port = build((signal) => {
        expect(signal).toBe(controller.signal);
        return new RecordingPacer(controller, phases, phase);
      });
      const ctx = toolContext({ ...opened, session: { ...opened.session, session: port } }, controller.signal);
      const retained: unknown[] = [];
      const ledger = ctx.context.ledger!;
      const retain = ledger.retain.bind(ledger);
      ledger.retain = (record) => (retained.push(record), retain(record));
      const contract = createNativeTools().find((t) => t.name === tool)!;
      const outcome = await executeTool(contract, input(), ctx.context).then(
        () => null,
        (error: unknown) => error,
      );
      expect(isReaError(outcome) && outcome.code).toBe('cancelled');
      expect(isReaError(outcome) && outcome.details).toMatchObject({ phase });
      // The cancel came in the middle of the query (its second turn), and nothing ran past it.
      expect(phases.filter((p) => p === phase)).toHaveLength(2);
      expect(phases.at(-1)).toBe(phase);
      expect(retained).toEqual([]);
    },
    120_000,
  );
});
