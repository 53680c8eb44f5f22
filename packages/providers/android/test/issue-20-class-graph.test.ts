// Class → class edges of project_android_application_graph (extends, implements, calls among the
// package's own classes), checked against the class definitions and invoke instructions `dexdump`
// prints for a real DEX from androguard's samples.
import { describe, expect, it } from '@jest/globals';
import { projectAndroidApplicationGraphTool } from '../src/index.js';
import { SAMPLES, output, runTool } from './support.js';

const DEX = `${SAMPLES}/android/TestsAndroguard/bin/classes.dex`;

/** The edges dexdump's listing shows, as `from kind to`. */
function expectedEdges(): Set<string> {
  const text = output('dexdump', ['-d', DEX]);
  const own = new Set([...text.matchAll(/^ {2}Class descriptor {2}: '(.*)'$/gm)].map((m) => m[1]!));
  const edges = new Set<string>();
  for (const block of text.split(/^Class #\d+\s+-$/m).slice(1)) {
    const cls = /Class descriptor {2}: '(.*)'/.exec(block)![1]!;
    const superclass = /Superclass {8}: '(.*)'/.exec(block)?.[1];
    const interfaces = /Interfaces {8}-\n((?: {4}#\d+ +: '.*'\n)*)/.exec(block)?.[1] ?? '';
    const add = (kind: string, to: string) => {
      if (to !== cls && own.has(to)) edges.add(`${cls} ${kind} ${to}`);
    };
    if (superclass !== undefined) add('extends', superclass);
    for (const m of interfaces.matchAll(/'(.*)'/g)) add('implements', m[1]!);
    for (const m of block.matchAll(/\|[0-9a-f]{4}: invoke-[\w/-]+ \{[^}]*\}, (L[^;]*;)\.[^:]+:/g)) add('calls', m[1]!);
  }
  return edges;
}

describe('class edges in project_android_application_graph', () => {
  it('links the package’s own classes by extends, implements and calls, as dexdump shows them', async () => {
    const expected = expectedEdges();
    expect([...expected].some((e) => e.includes(' calls '))).toBe(true);
    expect([...expected].some((e) => e.includes(' extends '))).toBe(true);
    expect([...expected].some((e) => e.includes(' implements '))).toBe(true);
    const { normalized_result } = await runTool<{
      total_edges: number;
      edges: { from: string; to: string; kind: string; evidence: string }[];
    }>(projectAndroidApplicationGraphTool, { path: DEX, limit: 2000 });
    const kinds = new Set(['extends', 'implements', 'calls']);
    const edges = normalized_result.edges.filter((e) => kinds.has(e.kind));
    expect(normalized_result.total_edges).toBeLessThanOrEqual(2000);
    expect(new Set(edges.map((e) => `${e.from.slice(6)} ${e.kind} ${e.to.slice(6)}`))).toEqual(expected);
    expect(edges.length).toBe(expected.size);
    const call = edges.find((e) => e.kind === 'calls')!;
    expect(call.evidence).toMatch(new RegExp(`calls ${call.to.slice(6).replace(/[$]/g, '\\$')}->\\S+ at \\d+`));
  });
});
