/*
 * Opening a binary must not hold the event loop: every pass of the analysis (disassembly, the
 * discovery passes over the instruction table, strings, the cross-reference index, names) gives the
 * event loop turns through one pacer, and a cancel seen at any of those turns ends the open as
 * `cancelled` naming the pass. A pacer whose slice is 0 ms turns at every checkpoint, so the turns and
 * cancel points are exercised deterministically; the result must be the one an open never interrupted
 * computes. The modules are internal, so they are imported from the package source.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBinaryLayout } from '@rea/artifact';
import type { BinaryLayout } from '@rea/artifact';
import { isReaError } from '@rea/evidence';
import { compileFixture } from '@rea/test-helpers';
import { decoderSource } from '../src/engine.js';
import type { DecoderSource, EngineArchitecture } from '../src/engine.js';
import { discover } from '../src/analysis/discovery.js';
import { ProcedureGraph } from '../src/analysis/graph.js';
import { Pacer } from '../src/analysis/pace.js';
import { findStrings } from '../src/analysis/strings.js';
import { addressOfName, collectNames } from '../src/names.js';
import { FIXTURES } from './support.js';

/** A pacer that records the pass of every turn and, when asked, cancels the open at a pass's first turn. */
class RecordingPacer extends Pacer {
  readonly phases: string[] = [];
  constructor(
    private readonly controller: AbortController,
    sliceMs: number,
    private readonly cancelAt: string | null = null,
  ) {
    super(controller.signal, sliceMs);
  }
  override async turn(phase: string): Promise<void> {
    this.phases.push(phase);
    if (phase === this.cancelAt) this.controller.abort(new Error('stop'));
    await super.turn(phase);
  }
}

/** The analysis steps of an open, as the provider runs them, through `pacer`. */
async function analyse(layout: BinaryLayout, source: DecoderSource, signal: AbortSignal, pacer: Pacer) {
  const discovery = await discover(layout, source, signal, 'fast', pacer);
  const { strings } = await findStrings(layout, signal, pacer);
  const graph = await ProcedureGraph.build(layout, discovery, pacer);
  const names = await collectNames(layout, discovery, pacer);
  const t = discovery.table;
  // Callees are compared as computed without turns (their own pacing is tested with the queries).
  const unpaced = new Pacer(new AbortController().signal, Number.POSITIVE_INFINITY);
  const calls: string[] = [];
  for (const p of discovery.procedures) calls.push(JSON.stringify(await graph.callees(p, unpaced, 'callees')));
  return {
    procedures: discovery.procedures,
    table: Array.from({ length: t.count }, (_, i) => [
      t.addressAt(i),
      t.size[i],
      t.flowAt(i),
      t.target(i),
      t.ref(i),
      t.refKindAt(i),
    ]),
    strings,
    names: names.list,
    calls,
  };
}

describe('issue 15: the Capstone open turns the event loop in every pass and stops at a cancel', () => {
  let layout: BinaryLayout;
  let source: DecoderSource;
  let reference: Awaited<ReturnType<typeof analyse>>;

  beforeAll(async () => {
    const file = compileFixture({
      source: join(FIXTURES, 'sample.c'),
      compiler: 'gcc',
      args: ['-O2', '-g', '-fno-inline'],
      output: 'sample-x64',
    });
    layout = parseBinaryLayout(readFileSync(file));
    source = decoderSource(layout.architecture as EngineArchitecture);
    // Never due: the passes run straight through, as one uninterrupted stretch would.
    const signal = new AbortController().signal;
    reference = await analyse(layout, source, signal, new Pacer(signal, Number.POSITIVE_INFINITY));
  }, 120_000);
  afterAll(() => source.close());

  const PASSES = ['disassembly', 'discovery', 'strings', 'cross-references', 'names'];

  it('should give the event loop a turn in every pass and compute the uninterrupted result', async () => {
    expect(reference.procedures.length).toBeGreaterThan(3);
    expect(reference.calls.some((c) => c.includes('"site"'))).toBe(true);
    const controller = new AbortController();
    const pacer = new RecordingPacer(controller, 0);
    let immediates = 0;
    let ticking = true;
    const tick = () => {
      immediates += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    // The probe stops however the analysis ends.
    const paced = await analyse(layout, source, controller.signal, pacer).finally(() => {
      ticking = false;
    });
    expect(new Set(pacer.phases)).toEqual(new Set(PASSES));
    // Other work ran between the slices: at least one queued callback per turn taken.
    expect(immediates).toBeGreaterThanOrEqual(pacer.phases.length);
    expect(paced).toEqual(reference);
  }, 120_000);

  it('should resolve every procedure name, synthesised ones included, to its procedure', async () => {
    const signal = new AbortController().signal;
    const pacer = new Pacer(signal, 0);
    const discovery = await discover(layout, source, signal, 'fast', pacer);
    const graph = await ProcedureGraph.build(layout, discovery, pacer);
    const names = await collectNames(layout, discovery, pacer);
    const at = (a: number) => graph.procedureAt(a);
    const synthetic = discovery.procedures.filter((p) => p.synthetic);
    expect(synthetic.length).toBeGreaterThan(0);
    for (const p of discovery.procedures) {
      // A name recorded from a symbol, export or import keeps its first address; any other is the procedure's.
      expect(addressOfName(names, p.name, at)).toBe(names.byName.get(p.name) ?? p.start);
    }
    // Inside a procedure longer than a byte, start + 1 starts no procedure (extents do not overlap).
    const first = synthetic.find((p) => p.end - p.start > 1)!;
    expect(addressOfName(names, first.name.toUpperCase(), at)).toBeUndefined();
    expect(addressOfName(names, `sub_${(first.start + 1).toString(16)}`, at)).toBeUndefined();
    expect(addressOfName(names, 'sub_', at)).toBeUndefined();
  }, 120_000);

  it.each(PASSES)(
    'should end as cancelled during %s when the cancel comes at its first turn',
    async (pass) => {
      const controller = new AbortController();
      const pacer = new RecordingPacer(controller, 0, pass);
      const outcome = await analyse(layout, source, controller.signal, pacer).then(
        () => null,
        (error: unknown) => error,
      );
      expect(isReaError(outcome) && outcome.code).toBe('cancelled');
      expect(isReaError(outcome) && outcome.details).toEqual({ phase: pass });
      // Nothing ran past the cancel: the cancelled pass was the last one to take a turn.
      expect(pacer.phases.at(-1)).toBe(pass);
    },
    120_000,
  );
});
