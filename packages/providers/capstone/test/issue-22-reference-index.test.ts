/*
 * The cross-reference index is kept for the whole session, so its bytes per reference set part of how
 * peak memory grows with a binary. It keeps one instruction number per reference, sorted by target;
 * where a reference comes from, what it reaches and its kind are read from the instruction table (it
 * kept a source, a target and a kind per reference as well: 13 bytes). Every typed array the graph
 * holds of its own is counted, and its answers are checked against a plain scan of the instruction
 * table. The modules are internal, so they are imported from the package source.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parseBinaryLayout } from '@rea/artifact';
import type { BinaryLayout } from '@rea/artifact';
import { formatAddress } from '@rea/native/core';
import { decoderSource } from '../src/engine.js';
import type { DecoderSource } from '../src/engine.js';
import { discover } from '../src/analysis/discovery.js';
import type { Discovery } from '../src/analysis/discovery.js';
import { ProcedureGraph } from '../src/analysis/graph.js';
import { Pacer } from '../src/analysis/pace.js';
import { Flow } from '../src/analysis/sweep.js';

/** Bytes of the typed arrays an object holds in its own fields (not those of the table it reads). */
function ownTypedBytes(value: object): number {
  let bytes = 0;
  for (const field of Object.values(value)) if (ArrayBuffer.isView(field)) bytes += field.byteLength;
  return bytes;
}

describe('issue 22: the cross-reference index keeps one instruction number per reference', () => {
  let layout: BinaryLayout;
  let source: DecoderSource;
  let discovery: Discovery;
  let graph: ProcedureGraph;
  const pacer = new Pacer(new AbortController().signal);

  beforeAll(async () => {
    layout = parseBinaryLayout(readFileSync('/usr/bin/ls'));
    source = decoderSource(layout.architecture as 'x86_64');
    discovery = await discover(layout, source, new AbortController().signal, 'fast', pacer);
    graph = await ProcedureGraph.build(layout, discovery, pacer);
  }, 60_000);
  afterAll(() => source.close());

  it('should hold at most 4 bytes per reference besides the procedure starts', () => {
    const t = discovery.table;
    let calls = 0;
    for (let i = 0; i < t.count; i += 1) if (t.flowAt(i) === Flow.Call && t.target(i) === t.target(i)) calls += 1;
    const references = discovery.procedures.reduce((n, p) => n + graph.referencesWithin(p).length, 0);
    expect(references).toBeGreaterThan(calls);
    const starts = discovery.procedures.length * 8;
    expect((ownTypedBytes(graph) - starts) / references).toBeLessThanOrEqual(4);
  });

  it('should answer callers and references as a scan of the instruction table finds them', () => {
    const t = discovery.table;
    const sites = new Map<number, number[]>();
    for (let i = 0; i < t.count; i += 1) {
      if (t.flowAt(i) !== Flow.Call || t.target(i) !== t.target(i)) continue;
      const list = sites.get(t.target(i)) ?? [];
      list.push(t.addressAt(i));
      sites.set(t.target(i), list);
    }
    const wrong: string[] = [];
    for (const p of discovery.procedures) {
      const expected = (sites.get(p.start) ?? []).map((a) => formatAddress(a));
      const found = graph.callers(p).filter((c) => c.kind === 'call');
      if (JSON.stringify(found.map((c) => c.site)) !== JSON.stringify(expected)) wrong.push(p.name);
      const to = graph.referencesTo(p.start).filter((r) => r.kind === 'call');
      if (JSON.stringify(to.map((r) => r.from)) !== JSON.stringify(expected)) wrong.push(`to ${p.name}`);
      for (const r of graph.referencesWithin(p)) {
        const from = Number.parseInt(r.from.slice(2), 16);
        if (from < p.start || from >= p.end) wrong.push(`within ${p.name}`);
        if (JSON.stringify(graph.referencesFrom(from)) !== JSON.stringify([r])) wrong.push(`from ${r.from}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
