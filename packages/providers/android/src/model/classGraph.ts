// Class → class edges of a package's own classes (those its DEX files define): a class extends or
// implements another, or a method of one calls a method of another. Each pair is one edge, with its
// first site as evidence and the count of sites.
import type { DexFile } from '../format/dex/file.js';

/** Most class → class edges kept; past it, a limitation says the graph is cut. */
export const MAX_CLASS_EDGES = 100_000;

/** One class → class edge. */
export interface ClassEdge {
  from: string;
  to: string;
  kind: 'extends' | 'implements' | 'calls';
  evidence: string;
}

/** Collects the class → class edges among `own` classes, one per pair and kind. */
export class ClassEdges {
  private readonly calls = new Map<string, { edge: ClassEdge; sites: number }>();
  readonly edges: ClassEdge[] = [];
  cut = false;

  constructor(private readonly own: ReadonlySet<string> | ReadonlyMap<string, unknown>) {}

  /** True when an edge from `from` to `to` (descriptors) is kept: another own class, within the budget. */
  private admit(from: string, to: string): boolean {
    if (from === to || !this.own.has(to)) return false;
    if (this.edges.length + this.calls.size >= MAX_CLASS_EDGES) return !(this.cut = true);
    return true;
  }

  /** The superclass and interfaces of `cls`, as its class_def names them. */
  hierarchy(cls: string, superclass: string | null, interfaces: readonly string[]): void {
    const at = (kind: ClassEdge['kind'], to: string) => {
      if (this.admit(cls, to))
        this.edges.push({ from: `class:${cls}`, to: `class:${to}`, kind, evidence: `class_def of ${cls}` });
    };
    if (superclass !== null) at('extends', superclass);
    for (const i of interfaces) at('implements', i);
  }

  /** A call at `offset` in `caller` (`class->name(params)return`) of method `index` of `dex`. */
  call(dex: DexFile, cls: string, caller: string, index: number, offset: number): void {
    const to = dex.methodClass(index);
    const key = `${cls}\0${to}`;
    const known = this.calls.get(key);
    if (known !== undefined) return void (known.sites += 1);
    if (!this.admit(cls, to)) return;
    const callee = dex.method(index);
    const edge: ClassEdge = {
      from: `class:${cls}`,
      to: `class:${to}`,
      kind: 'calls',
      evidence: `${caller} calls ${to}->${callee.name} at ${offset}`,
    };
    this.calls.set(key, { edge, sites: 1 });
  }

  /** Every edge: hierarchy first, then calls with their site counts. */
  all(): ClassEdge[] {
    const calls = [...this.calls.values()].map(({ edge, sites }) =>
      sites === 1 ? edge : { ...edge, evidence: `${edge.evidence} (${sites} call sites)` },
    );
    return [...this.edges, ...calls];
  }
}
